// Shared by the durability tests: the built CLI as an async child process (a fake model server
// lives in the test process, so the child must not block it), and a counting fake model.
import { createHash } from 'node:crypto';
import { turnAsync as runCli, type AsyncCliResult } from '../cli/run-cli.js';
import { fakeServer, openaiCompletion, type FakeServer } from '../providers/fake-server.js';

export { ROOT } from '../cli/run-cli.js';

export type Run = AsyncCliResult;

/** The CLI in `cwd` with the fake provider's key, SIGKILLed after a minute. */
export function turnAsync(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return runCli(args, { cwd, env: { TURN_TEST_KEY: 'k', ...env }, killAfterMs: 60_000 });
}

/** The prompt of a chat request: its last user message. */
export function promptOf(json: Record<string, unknown>): string {
  const messages = (json.messages ?? []) as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === 'user').pop();
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  return text.split('\n\n')[0];
}

/** A model that answers every prompt with a value derived from it, and counts what it is asked. */
export async function countingModel(): Promise<{ server: FakeServer; spec: string; asked: () => string[] }> {
  const server = await fakeServer((req) => {
    const h = createHash('sha256').update(promptOf(req.json)).digest('hex').slice(0, 8);
    return { status: 200, body: openaiCompletion(JSON.stringify({ value: `R${h}`, confidence: 0.9 })) };
  });
  return {
    server,
    spec: `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY`,
    asked: () => server.received.map((r) => promptOf(r.json)),
  };
}

export function runIdOf(stderr: string): string {
  const m = /turn: run (\S+)/.exec(stderr);
  if (!m) throw new Error(`no run id in: ${stderr}`);
  return m[1];
}
