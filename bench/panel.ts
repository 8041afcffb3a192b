// The run panel's updates at 1,000 actors (issue 44), measured without a browser: the program of
// the issue (N workers, each streaming a typed reply from a local OpenAI-compatible server that
// answers one call at a time, as a local model does) runs through the panel's Runner, and every
// view it publishes goes through the delta producer (extension/protocol/run-delta.ts) as the panel
// sends it. Anchored on the run's own events (their JSON, as the Runner receives them): the bytes
// sent to the webview per run against the run's event bytes (the bound: within 2×), and
// the producer's time per event against serializing the event once. The whole view per update (what
// the panel sent before) is in the note. Beside them, the figures test/e2e/panel-scale.e2e.ts measured
// in code-server (PANEL_SCALE_FILE: bytes and webview time per event, hover, Stop), read from the file
// that e2e leaves; none when it has not run.
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

/**
 * Where test/e2e/panel-scale.e2e.ts leaves its figures from code-server: the one-line JSON it prints
 * as `PANEL_SCALE {json}`, in a file (the JSON alone, or a saved log holding that line).
 * TURN_PANEL_SCALE_FILE names another file.
 */
export const PANEL_SCALE_FILE = path.join(__dirname, '..', 'test', 'e2e', 'artifacts', 'panel-scale.json');
/** the most of that file read: the figures are a few hundred bytes */
const MAX_SCALE_BYTES = 1_000_000;

/** One run's figures as the e2e gives them (`w10`, `w1000`). */
interface ScaleRun {
  bytes: number;
  eventBytes: number;
  events: number;
  webviewLongTaskMs: number;
  stopShownMs: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

function scaleRun(v: unknown): ScaleRun | null {
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  const bytes = num(r.bytes);
  const eventBytes = num(r.eventBytes);
  const events = num(r.events);
  const webviewLongTaskMs = num(r.webviewLongTaskMs);
  if (bytes === null || eventBytes === null || events === null || events === 0 || eventBytes === 0 || webviewLongTaskMs === null) return null;
  return { bytes, eventBytes, events, webviewLongTaskMs, stopShownMs: num(r.stopShownMs) };
}

/** The PANEL_SCALE JSON in `text`: the text itself, or its line starting `PANEL_SCALE `. */
export function panelScaleJson(text: string): Record<string, unknown> | null {
  const at = text.indexOf('PANEL_SCALE ');
  const line = at < 0 ? text : text.slice(at + 'PANEL_SCALE '.length).split('\n', 1)[0];
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The code-server figures as bench rows (issue 44's bounds): per streamed run, the bytes the
 * webview received per event against the run's own event bytes per event (within 2×), and the
 * webview's long-task time per event at 1,000 workers against at 10 (flat: an update costs what
 * changed, not the run's size); hover during the 1,000-worker run against idle (within 3×); Run to
 * Stop shown, and Stop clicked to `stopped`, against the issue's 1 s. Figures that are not there or
 * not numbers make no row.
 */
export function codeServerRows(scale: Record<string, unknown>): Row[] {
  const rows: Row[] = [];
  const runs: [number, ScaleRun | null][] = [[10, scaleRun(scale.w10)], [1000, scaleRun(scale.w1000)]];
  for (const [workers, r] of runs) {
    if (!r) continue;
    rows.push(row(`run panel in code-server, ${workers} streamed workers: bytes the webview received per event`, quantity(r.bytes / r.events, 'B'), 'the run\'s own event bytes per event', quantity(r.eventBytes / r.events, 'B'),
      `${r.events} events; the issue's bound: within 2×`));
  }
  const [, small] = runs[0];
  const [, large] = runs[1];
  if (small && large && small.webviewLongTaskMs > 0) {
    rows.push(row('run panel in code-server: webview long-task time per event, 1,000 workers', quantity(large.webviewLongTaskMs / large.events * 1000, 'µs'), 'the same, 10 workers', quantity(small.webviewLongTaskMs / small.events * 1000, 'µs'),
      `${Math.round(large.webviewLongTaskMs)} ms over ${large.events} events against ${Math.round(small.webviewLongTaskMs)} ms over ${small.events}`));
  }
  const hover = scale.hover as Record<string, unknown> | undefined;
  const during = num(hover?.duringMedian);
  const idle = num(hover?.idleMedian);
  if (during !== null && idle !== null && idle > 0) {
    rows.push(row('run panel in code-server: editor hover during the 1,000-worker run', quantity(during, 'ms'), 'hover idle', quantity(idle, 'ms'), 'medians; the issue\'s bound: within 3×'));
  }
  const bound = quantity(1000, 'ms');
  if (large?.stopShownMs !== null && large?.stopShownMs !== undefined) rows.push(row('run panel in code-server: Run to Stop shown, 1,000 workers', quantity(large.stopShownMs, 'ms'), 'the issue\'s bound (1 s)', bound));
  const stopped = num((scale.stop as Record<string, unknown> | undefined)?.stoppedMs);
  if (stopped !== null) rows.push(row('run panel in code-server: Stop clicked to `stopped`, while streaming', quantity(stopped, 'ms'), 'the issue\'s bound (1 s)', bound));
  return rows;
}

/** The code-server rows from PANEL_SCALE_FILE, or none (and why, on stderr) when the e2e has not left it. */
export function codeServerBenchmarks(file = process.env.TURN_PANEL_SCALE_FILE || PANEL_SCALE_FILE): Row[] {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(MAX_SCALE_BYTES);
      text = buf.subarray(0, fs.readSync(fd, buf, 0, MAX_SCALE_BYTES, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    process.stderr.write(`bench/panel.ts: no code-server figures (${file}): run test/e2e/panel-scale.e2e.ts first\n`);
    return [];
  }
  const scale = panelScaleJson(text);
  if (!scale) {
    process.stderr.write(`bench/panel.ts: ${file} holds no PANEL_SCALE figures\n`);
    return [];
  }
  return codeServerRows(scale);
}

export async function panelBenchmarks(): Promise<Row[]> {
  const server = await streamingServer();
  try {
    const rows: Row[] = codeServerBenchmarks();
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
      for (const r of codeServerBenchmarks()) process.stdout.write(`${r.benchmark}: ${r.ours.medianMs.toFixed(1)} ${r.ours.unit ?? 'ms'} against ${r.anchorName} ${r.anchor.medianMs.toFixed(1)} ${r.anchor.unit ?? 'ms'} (${r.ratio.toFixed(2)}×)\n`);
    } finally {
      await server.close();
    }
  })();
}
