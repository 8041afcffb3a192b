// The run panel's updates at 1,000 actors (issue 44), measured without a browser: the program of
// the issue (N workers, each streaming a typed reply from a local OpenAI-compatible server that
// answers one call at a time, as a local model does) runs through the panel's Runner, and every
// view it publishes goes through the delta producer (extension/protocol/run-delta.ts) as the panel
// sends it. Anchored on the run's own events (their JSON, as the Runner receives them): the bytes
// sent to the webview per run against the run's event bytes (the bound: within 2×), and
// the producer's time per event against serializing the event once. The whole view per update (what
// the panel sent before) is in the note.
//   node --import tsx bench/panel.ts        (alone; `npm run bench` runs it with the rest)
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Runner } from '../extension/panel/runner.js';
import { RunDeltaProducer } from '../extension/protocol/run-delta.js';
import { MemoryVault } from '../runtime/index.js';
import { quantity, row, type Row } from './harness.js';

export const panelProgram = (workers: number) => `// ${workers} workers, each streaming a typed reply (bench/panel.ts, test/e2e/panel-live.e2e.ts)
struct Verdict { ok: Bool, note: Str };
let worker = turn(n: Num) -> Verdict {
    context.append("item " + n);
    return infer Verdict { "Judge item " + n + " in one short note."; };
};
turn {
    let ns = [];
    let k = 0;
    while k < ${workers} {
        let ns = call("list_push", ns, k);
        let k = k + 1;
    }
    let verdicts = gather spawn_each(ns, worker);
    call("echo", "judged " + call("len", verdicts));
    return call("len", verdicts);
}
`;

/** A one-slot OpenAI-compatible server streaming the same reply in `pieces` chunks. */
export async function streamingServer(pieces = 8): Promise<{ url: string; close(): Promise<void> }> {
  const reply = JSON.stringify({ value: { ok: true, note: 'fine, nothing to add' }, confidence: 0.8 });
  const size = Math.ceil(reply.length / pieces);
  let busy: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // one call at a time: the next one starts when this one's stream ends
      busy = busy.then(async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < reply.length; i += size) {
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: reply.slice(i, i + size) }, finish_reason: null }] })}\n\n`);
          await new Promise((r) => setImmediate(r));
        }
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 40, completion_tokens: 12 } })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface PanelMeasure {
  workers: number;
  status: string;
  events: number;
  eventBytes: number;
  /** what went to the webview: messages and their JSON bytes */
  messages: number;
  sentBytes: number;
  /** what the whole view on every update (the panel before deltas) would have sent */
  wholeBytes: number;
  /** the producer's time, and serializing each event once */
  producerMs: number;
  eventJsonMs: number;
  modelCalls: number;
  modelBarsWithPhases: number;
  runMs: number;
}

/** Runs `workers` streamed workers through the panel's Runner and the delta producer. */
export async function measurePanel(workers: number, serverUrl: string): Promise<PanelMeasure> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-panel-'));
  try {
    const file = path.join(dir, 'workers.tn');
    fs.writeFileSync(file, panelProgram(workers));
    const producer = new RunDeltaProducer();
    const m: PanelMeasure = { workers, status: '', events: 0, eventBytes: 0, messages: 0, sentBytes: 0, wholeBytes: 0, producerMs: 0, eventJsonMs: 0, modelCalls: 0, modelBarsWithPhases: 0, runMs: 0 };
    const t0 = performance.now();
    const view = await new Runner({
      file,
      options: { model: `openai:local?base_url=${serverUrl}/v1&logprobs=0&retries=0`, cwd: dir, env: { OPENAI_API_KEY: 'k-bench-000000' }, authority: { vault: new MemoryVault({}) } },
      publish: (v) => {
        const s = performance.now();
        const message = producer.next(v);
        const text = message ? JSON.stringify(message) : '';
        m.producerMs += performance.now() - s;
        if (message) {
          m.messages++;
          m.sentBytes += text.length;
        }
        m.wholeBytes += JSON.stringify(v).length;
      },
      tap: (e) => {
        const s = performance.now();
        m.eventBytes += JSON.stringify(e).length;
        m.eventJsonMs += performance.now() - s;
        m.events++;
      },
    }).start();
    m.runMs = performance.now() - t0;
    m.status = view.status;
    m.modelCalls = view.timeline.filter((t) => t.kind === 'infer.reply').length;
    m.modelBarsWithPhases = view.timeline.filter((t) => t.kind === 'infer.reply' && t.phases).length;
    return m;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function describe(m: PanelMeasure): string {
  const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;
  return `${m.workers} workers: ${m.status} in ${(m.runMs / 1000).toFixed(1)} s; ${m.events} events, ${mb(m.eventBytes)}; sent ${m.messages} messages, ${mb(m.sentBytes)} (${(m.sentBytes / m.eventBytes).toFixed(2)}× the events; the whole view per update: ${mb(m.wholeBytes)}, ${(m.wholeBytes / m.eventBytes).toFixed(1)}×); producer ${(m.producerMs / m.events * 1000).toFixed(1)} µs per event; ${m.modelCalls} model calls, ${m.modelBarsWithPhases} with phases`;
}

export async function panelBenchmarks(): Promise<Row[]> {
  const server = await streamingServer();
  try {
    const rows: Row[] = [];
    for (const workers of [10, 1000]) {
      const m = await measurePanel(workers, server.url);
      if (m.status !== 'done') throw new Error(`the panel benchmark's run ended ${m.status}`);
      rows.push(
        row(`run panel, ${workers} streamed workers: bytes sent to the webview per run`, quantity(m.sentBytes / 1e6, 'MB'), 'the run\'s own events (JSON)', quantity(m.eventBytes / 1e6, 'MB'),
          `${m.messages} messages; the whole view per update sent ${(m.wholeBytes / 1e6).toFixed(1)} MB (${(m.wholeBytes / m.eventBytes).toFixed(1)}× the events)`),
        row(`run panel, ${workers} streamed workers: delta producer time per event`, quantity(m.producerMs / m.events * 1000, 'µs'), 'serializing the event once', quantity(m.eventJsonMs / m.events * 1000, 'µs'),
          `${m.events} events, ${m.modelCalls} model calls`),
      );
    }
    return rows;
  } finally {
    await server.close();
  }
}

if (require.main === module) {
  void (async () => {
    const server = await streamingServer();
    try {
      for (const workers of [10, 1000]) process.stdout.write(`${describe(await measurePanel(workers, server.url))}\n`);
    } finally {
      await server.close();
    }
  })();
}
