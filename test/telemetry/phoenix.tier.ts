// The observability tier (docs/observability.md): a real OpenTelemetry backend, Arize Phoenix
// (PyPI `arize-phoenix`, provisioned by scripts/provision-phoenix.sh into .e2e/phoenix/), started
// on 127.0.0.1 with its working directory in a temporary folder. A multi-actor Turn program runs
// with a model (the OpenAI-compatible fake), an HTTP effect and an MCP call (test/telemetry/world.ts),
// exporting to Phoenix's OTLP/HTTP endpoint; the test then asks Phoenix's own REST API what it
// stored: the span tree, the gen_ai.* attributes and token counts (and Phoenix's own reading of
// them), that the trace context the HTTP server and the MCP server received names the stored
// spans, and that the vault secret is nowhere in what Phoenix stored, its database file included.
//   npm run test:telemetry   (scripts/provision-phoenix.sh first; `npm run test:all` does both)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../cli/run-cli.js';
import { startRun } from '../../runtime/run/run.js';
import { SECRET, startWorld, type World } from './world.js';

const PHOENIX_DIR = process.env.TURN_PHOENIX_DIR ?? path.join(ROOT, '.e2e', 'phoenix');
const PHOENIX = path.join(PHOENIX_DIR, 'bin', 'phoenix');
const provisioned = fs.existsSync(PHOENIX);
const skip = provisioned ? false : `Phoenix is not provisioned (no ${PHOENIX}): run scripts/provision-phoenix.sh`;

/** The most Phoenix may take to start (it migrates a new database first): past it the test fails with its log. */
const START_LIMIT_MS = 180_000;
/** The most Phoenix may take to make what it received queryable. */
const INGEST_LIMIT_MS = 30_000;

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Phoenix {
  url: string;
  workDir: string;
  child: ChildProcess;
  log: () => string;
}

/** Starts Phoenix and resolves when it says it listens (its own line), or rejects with its log when it exits or takes too long. */
async function startPhoenix(): Promise<Phoenix> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-phoenix-'));
  const port = await freePort();
  const grpc = await freePort();
  let output = '';
  const child = spawn(PHOENIX, ['serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: workDir,
      PHOENIX_WORKING_DIR: workDir,
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(grpc),
      PHOENIX_TELEMETRY_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Phoenix did not start within ${START_LIMIT_MS / 1000} s:\n${output.slice(-4000)}`)), START_LIMIT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(`Uvicorn running on ${url}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Phoenix exited (${code}) before it listened:\n${output.slice(-4000)}`));
    });
  });
  return { url, workDir, child, log: () => output };
}

interface StoredSpan {
  name: string;
  span_kind: string;
  context: { trace_id: string; span_id: string };
  parent_id: string | null;
  status_code: string;
  attributes: Record<string, unknown>;
  events: unknown[];
}

async function spansOf(phoenix: Phoenix, traceId: string): Promise<{ spans: StoredSpan[]; raw: string }> {
  const res = await fetch(`${phoenix.url}/v1/projects/default/spans?limit=1000`);
  assert.equal(res.status, 200);
  const raw = await res.text();
  const spans = (JSON.parse(raw) as { data: StoredSpan[] }).data.filter((s) => s.context.trace_id === traceId);
  return { spans, raw };
}

/** The trace's spans once Phoenix has stored `count` of them (it ingests from a queue). */
async function stored(phoenix: Phoenix, traceId: string, count: number): Promise<{ spans: StoredSpan[]; raw: string }> {
  const deadline = Date.now() + INGEST_LIMIT_MS;
  for (;;) {
    const got = await spansOf(phoenix, traceId);
    if (got.spans.length >= count) return got;
    if (Date.now() > deadline) assert.fail(`Phoenix stored ${got.spans.length} of the trace's ${count} spans within ${INGEST_LIMIT_MS / 1000} s: ${got.spans.map((s) => s.name).join(', ')}\n${phoenix.log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

let phoenix: Phoenix | undefined;
let world: World | undefined;
before(async () => {
  if (!provisioned) return;
  phoenix = await startPhoenix();
  world = await startWorld();
});
after(async () => {
  await world?.close();
  if (phoenix) {
    const exited = new Promise((r) => phoenix!.child.once('exit', r));
    phoenix.child.kill('SIGTERM');
    await exited;
    fs.rmSync(phoenix.workDir, { recursive: true, force: true });
  }
});

test('Phoenix stores a multi-actor run as the GenAI span tree, with its tokens and trace context, and never the secret', { skip }, async () => {
  const p = phoenix!;
  const w = world!;
  const run = await startRun({
    file: w.file,
    cwd: w.dir,
    model: w.modelSpec,
    env: w.env,
    authority: { allowNet: ['127.0.0.1:*'] },
    telemetry: { endpoint: p.url, captureContent: true },
  });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));

  // the HTTP server's traceparent names the trace and the span Phoenix stored for the effect
  const [, traceId, httpSpanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(w.api.seen[0]?.traceparent)) ?? [];
  assert.ok(traceId, `the HTTP server received a traceparent: ${JSON.stringify(w.api.seen[0])}`);
  // the run, main and the scout, two model calls, the HTTP effect and the MCP call
  const { spans, raw } = await stored(p, traceId, 7);
  const one = (pred: (s: StoredSpan) => boolean, what: string): StoredSpan => {
    const found = spans.filter(pred);
    assert.equal(found.length, 1, `${what}: ${spans.map((s) => s.name).join(', ')}`);
    return found[0];
  };
  const root = one((s) => s.name === 'invoke_workflow trip.tn', 'the run');
  assert.equal(root.parent_id, null);
  assert.equal(root.attributes['turn.run.outcome'], 'done');
  const main = one((s) => s.name === 'invoke_agent main', 'main');
  const scout = one((s) => s.name.startsWith('invoke_agent') && s.attributes['turn.pid'] === 2, 'the scout');
  assert.equal(main.parent_id, root.context.span_id);
  assert.equal(scout.parent_id, main.context.span_id);
  // Phoenix read the conventions' span kinds
  assert.equal(main.span_kind, 'AGENT');

  const chats = spans.filter((s) => s.name === 'chat slow');
  assert.deepEqual(chats.map((c) => c.parent_id).sort(), [main.context.span_id, scout.context.span_id].sort());
  for (const c of chats) {
    assert.equal(c.span_kind, 'LLM');
    assert.equal(c.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(c.attributes['gen_ai.provider.name'], 'openai');
    assert.equal(c.attributes['gen_ai.request.model'], 'slow');
    assert.equal(c.attributes['gen_ai.usage.input_tokens'], 120);
    assert.equal(c.attributes['gen_ai.usage.output_tokens'], 30);
    assert.deepEqual(c.attributes['gen_ai.response.finish_reasons'], ['stop']);
    assert.equal(c.attributes['turn.confidence'], 0.75);
    // Phoenix's own token count, from our gen_ai.* attributes
    assert.equal(c.attributes['llm.token_count.total'], 150);
  }
  const scoutChat = chats.find((c) => c.parent_id === scout.context.span_id)!;
  assert.equal(scoutChat.attributes['gen_ai.request.max_tokens'], 200);
  assert.equal(scoutChat.attributes['gen_ai.request.temperature'], 0.2);

  const http = one((s) => s.name === 'execute_tool http_request', 'the HTTP effect');
  assert.equal(http.context.span_id, httpSpanId, 'the traceparent the HTTP server received is the stored span');
  assert.equal(http.parent_id, main.context.span_id);
  assert.equal(http.span_kind, 'TOOL');
  const mcp = one((s) => s.name === 'execute_tool lookup', 'the MCP call');
  assert.equal(mcp.attributes['mcp.method.name'], 'tools/call');
  assert.deepEqual(w.mcp.metas.map((m) => (m as { traceparent?: string } | null)?.traceparent), [`00-${traceId}-${mcp.context.span_id}-01`]);

  // the secret: sent in the API's header, echoed by the model into both replies (captured content)
  assert.equal(w.api.seen[0].authorization, `Bearer ${SECRET}`);
  assert.match(String(scoutChat.attributes['gen_ai.output.messages']), /Lyon /);
  assert.ok(!raw.includes(SECRET), 'the secret is in what Phoenix returns');
  // nor in anything Phoenix wrote to disk (its SQLite database and journal)
  for (const file of fs.readdirSync(p.workDir, { recursive: true }) as string[]) {
    const full = path.join(p.workDir, file);
    if (fs.statSync(full).isFile()) assert.ok(!fs.readFileSync(full).includes(SECRET), `the secret is in Phoenix's ${file}`);
  }
});
