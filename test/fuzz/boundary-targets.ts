// Fuzz targets at the boundaries where data nobody here controls comes in (issue 37): a model
// server's bytes on the wire, a stored run's bytes. Each feeds hostile input through the runtime as a
// user reaches it and counts as a failure what targets.ts counts: a JavaScript exception where a
// located Turn error belongs, an error without a line, or a case that does not end within its bounds.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { openStore, resumeRun, startRun, type RunResult } from '../../runtime/index.js';

const BAD = /internal error|Maximum call stack|is not a function|Cannot read propert|undefined is not|is not iterable|RangeError|TypeError/;

export interface BoundaryTarget {
  name: string;
  arbitrary: fc.Arbitrary<string>;
  check(input: string): Promise<string | null>;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fuzz-boundary-'));

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** Ends a started run within `ms` and says what went wrong with it, if anything. */
async function judged(run: { start(): Promise<RunResult>; stop(why: string): void }, what: string, ms: number): Promise<string | null> {
  const stop = setTimeout(() => run.stop(`the fuzzer stopped a ${what} that did not end within ${ms} ms`), ms);
  try {
    const result = await run.start();
    if (result.kind === 'stopped') return `the ${what} did not end within ${ms} ms`;
    if (result.kind === 'aborted') return `${what} aborted: ${result.message}`;
    if (result.kind === 'failed') {
      if (BAD.test(result.error.message)) return `${what}: ${result.error.message}`;
      if (!(result.error.line >= 1)) return `a ${what} error without a line: ${result.error.message}`;
    }
    return null;
  } catch (e) {
    return `${what} threw ${describe(e)}`;
  } finally {
    clearTimeout(stop);
  }
}

// ---- a model server's reply, byte for byte -------------------------------------------------------

/** One piece of what the hostile server writes, in the order written. */
type Piece =
  | { t: 'data'; json: unknown } // a well-formed SSE event
  | { t: 'raw'; text: string } // any text, newlines or not
  | { t: 'comment' } // an SSE keep-alive
  | { t: 'blank' } // an empty line (Ollama's keep-alive)
  | { t: 'long'; n: number; newline: boolean }; // a line of n characters

interface WireCase {
  provider: 'openai' | 'anthropic' | 'ollama';
  status: number;
  contentType: string;
  pieces: Piece[];
}

const delta = (content: string) => ({ choices: [{ index: 0, delta: { content } }] });

const piece: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(fc.string({ maxLength: 30 }).map(delta), fc.jsonValue({ maxDepth: 3 })).map((json) => ({ t: 'data' as const, json })) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }).map((text) => ({ t: 'raw' as const, text })) },
  { weight: 1, arbitrary: fc.constant({ t: 'comment' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'blank' as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('long' as const), n: fc.integer({ min: 1, max: 300_000 }), newline: fc.boolean() }) },
);

function renderPiece(p: Piece, provider: WireCase['provider']): string {
  switch (p.t) {
    case 'data':
      // Ollama's native API streams JSON lines; the others server-sent events
      return provider === 'ollama' ? `${JSON.stringify(p.json)}\n` : `data: ${JSON.stringify(p.json)}\n\n`;
    case 'raw':
      return p.text;
    case 'comment':
      return ': keep-alive\n\n';
    case 'blank':
      return '\n';
    case 'long':
      return (provider === 'ollama' ? '' : 'data: ') + 'x'.repeat(p.n) + (p.newline ? '\n\n' : '');
  }
}

let wire: Promise<{ url: string; next: (c: WireCase) => void }> | undefined;

/** One local server for the whole fuzz run; each case sets what it answers next. */
function wireServer(): Promise<{ url: string; next: (c: WireCase) => void }> {
  wire ??= new Promise((resolve) => {
    let current: WireCase | undefined;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const c = current;
        if (!c) {
          res.writeHead(500).end();
          return;
        }
        res.writeHead(c.status, { 'content-type': c.contentType });
        for (const p of c.pieces) res.write(renderPiece(p, c.provider));
        res.end();
      });
    });
    server.unref();
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, next: (c) => (current = c) }));
  });
  return wire;
}

function modelSpec(c: WireCase, url: string): string {
  const bounds = 'retries=0&idle_timeout_ms=500&first_byte_timeout_ms=500';
  if (c.provider === 'anthropic') return `anthropic:fuzz?base_url=${url}&${bounds}`;
  if (c.provider === 'ollama') return `ollama:fuzz?base_url=${url}&api=native&${bounds}`;
  return `openai:fuzz?base_url=${url}/v1&logprobs=0&${bounds}`;
}

async function throughTheWire(input: string): Promise<string | null> {
  const c = JSON.parse(input) as WireCase;
  const { url, next } = await wireServer();
  next(c);
  const caseDir = fs.mkdtempSync(path.join(dir, 'wire-'));
  const file = path.join(caseDir, 'p.tn');
  fs.writeFileSync(file, 'struct V { ok: Bool, note: Str };\ntry { let v = infer V { "judge"; }; call("echo", v.note); } catch (e) { call("echo", e["type"]); }\n');
  try {
    let run;
    try {
      run = await startRun({ file, cwd: caseDir, model: modelSpec(c, url), fetchSchemas: false, env: { OPENAI_API_KEY: 'fuzz-key-0000', ANTHROPIC_API_KEY: 'fuzz-key-0000' }, onOutput: () => {} });
    } catch (e) {
      return `startRun threw ${describe(e)}`;
    }
    return await judged(run, 'run', 15_000);
  } finally {
    fs.rmSync(caseDir, { recursive: true, force: true });
  }
}

// ---- a stored run, damaged between suspend and resume ----------------------------------------------

interface StoreCase {
  /** byte edits of the store's file: [offset fraction in 1/10000, new byte] */
  edits: [number, number][];
}

const STORED_PROGRAM = `let kept = {"a": [1, 2, 3], "b": "text kept across the suspend"};
let n = call("time_now_ms");
suspend;
call("echo", call("json_stringify", kept));
`;
const EXPECTED_LINE = '{"a":[1,2,3],"b":"text kept across the suspend"}';

/** What a run stopped by a damaged store says: it names the store (StoreError's messages). */
const DAMAGED_STORE = /^resume (aborted: .*|threw StoreError: .*)the Turn store .+ is corrupt|^resume (aborted|threw StoreError): .*in the Turn store /;

/** The SQLite file of a store folder (whatever the driver names it). */
function storeFile(storeDir: string): string | undefined {
  return fs.readdirSync(storeDir).map((f) => path.join(storeDir, f)).find((f) => /\.(db|sqlite3?)$/.test(f));
}

async function throughADamagedStore(input: string): Promise<string | null> {
  const c = JSON.parse(input) as StoreCase;
  const caseDir = fs.mkdtempSync(path.join(dir, 'store-'));
  const file = path.join(caseDir, 'p.tn');
  fs.writeFileSync(file, STORED_PROGRAM);
  const storeDir = path.join(caseDir, '.turn');
  try {
    let store = openStore(storeDir);
    let id: string;
    try {
      const run = await startRun({ file, cwd: caseDir, model: 'mock', store, fetchSchemas: false, onOutput: () => {} });
      const first = await judged(run, 'run', 10_000);
      if (first) return first;
      id = run.id!;
    } finally {
      store.close();
    }
    const db = storeFile(storeDir);
    if (!db) return `no store file in ${fs.readdirSync(storeDir).join(', ')}`;
    const bytes = fs.readFileSync(db);
    for (const [at, byte] of c.edits) bytes[Math.floor((at / 10_000) * bytes.length) % bytes.length] = byte;
    fs.writeFileSync(db, bytes);
    // a damaged store may refuse to open or to resume (a clear message), never crash or lie
    try {
      store = openStore(storeDir);
    } catch (e) {
      return e instanceof Error && !BAD.test(e.message) ? null : `openStore threw ${describe(e)}`;
    }
    const lines: string[] = [];
    try {
      let resumed;
      try {
        resumed = await resumeRun({ runId: id, cwd: caseDir, model: 'mock', store, onOutput: (l) => lines.push(l) });
      } catch (e) {
        return e instanceof Error && !BAD.test(e.message) && !(e instanceof TypeError) ? null : `resumeRun threw ${describe(e)}`;
      }
      const ended = await judged(resumed, 'resume', 10_000);
      // a store found damaged mid-resume may stop the run, naming the store and what to do
      if (ended && !(DAMAGED_STORE.test(ended) && !BAD.test(ended))) return ended;
      // what it printed, if it printed the kept value, is the value that was kept
      const printed = lines.filter((l) => l.startsWith('{'));
      if (printed.some((l) => l !== EXPECTED_LINE)) return `the resume printed a wrong value: ${printed.join(' | ').slice(0, 200)}`;
      return null;
    } finally {
      store.close();
    }
  } catch (e) {
    return `threw ${describe(e)}`;
  } finally {
    fs.rmSync(caseDir, { recursive: true, force: true });
  }
}

export const BOUNDARY_TARGETS: BoundaryTarget[] = [
  {
    name: 'wire-reply',
    arbitrary: fc
      .record({
        provider: fc.constantFrom('openai', 'anthropic', 'ollama'),
        status: fc.oneof({ weight: 5, arbitrary: fc.constant(200) }, { weight: 1, arbitrary: fc.constantFrom(400, 429, 500, 503) }),
        contentType: fc.constantFrom('text/event-stream', 'application/json', 'application/x-ndjson', 'text/html'),
        pieces: fc.array(piece, { maxLength: 12 }),
      })
      .map((c) => JSON.stringify(c)),
    check: throughTheWire,
  },
  {
    name: 'store',
    arbitrary: fc.record({ edits: fc.array(fc.tuple(fc.nat(9_999), fc.nat(255)), { minLength: 1, maxLength: 6 }) }).map((c) => JSON.stringify(c)),
    check: throughADamagedStore,
  },
];
