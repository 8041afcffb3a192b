// The local services research_team.tn uses in the panel's end-to-end test and its screenshots: an
// OpenAI-compatible chat endpoint (/v1/chat/completions) whose replies depend on the prompt, and a
// lookup service (/lookup?q=). Both answer after a short pause so the timeline has durations to show.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TeamServer {
  port: number;
  /** the model spec for `turn.model` (the key is read from TURN_E2E_MODEL_KEY) */
  model: string;
  /** the prompts the model was asked, in order */
  asked: string[];
  close(): Promise<void>;
}

const PAUSE_MS = { model: 120, lookup: 70 };

function reply(prompt: string): unknown {
  if (prompt.startsWith('Plan research')) return { value: { topics: ['journals', 'replay', 'forks'], tone: 'upbeat' }, confidence: 0.9 };
  const topic = /Summarise (\S+)/.exec(prompt)?.[1] ?? 'something';
  return { value: `${topic}: recorded steps make a run repeatable`, confidence: 0.8 };
}

function lastUserMessage(body: string): string {
  try {
    const messages = (JSON.parse(body) as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    const user = messages.filter((m) => m.role === 'user').pop();
    return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  } catch {
    return '';
  }
}

export async function teamServer(): Promise<TeamServer> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/lookup') {
        const q = url.searchParams.get('q') ?? '';
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`notes on ${q}: ${q.length * 7} pages`);
        }, PAUSE_MS.lookup + q.length * 10);
        return;
      }
      const prompt = lastUserMessage(Buffer.concat(chunks).toString('utf8'));
      asked.push(prompt);
      const content = JSON.stringify(reply(prompt));
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          id: 'chatcmpl-e2e', object: 'chat.completion', created: 1700000000, model: 'gpt-e2e',
          choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 60, completion_tokens: 12, total_tokens: 72 },
        }));
      }, PAUSE_MS.model + (prompt.length % 5) * 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    model: `openai:gpt-e2e?base_url=http://127.0.0.1:${port}/v1&api_key_env=TURN_E2E_MODEL_KEY`,
    asked,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
