// Fuzz targets at the boundaries where data nobody here controls comes in (issue 37): a model
// server's bytes on the wire, an MCP server's replies, a model file's header, a stored run's bytes. Each feeds hostile input through the runtime as a
// user reaches it and counts as a failure what targets.ts counts: a JavaScript exception where a
// located Turn error belongs, an error without a line, or a case that does not end within its bounds.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { openStore, resumeRun, startRun, type RunResult } from '../../runtime/index.js';
import { checkGgufHeader, GgufError } from '../../runtime/providers/gguf.js';

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
export async function judged(run: { start(): Promise<RunResult>; stop(why: string): void }, what: string, ms: number): Promise<string | null> {
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

// ---- an MCP server's replies ------------------------------------------------------------------------

/** What the hostile stdio MCP server does when its tool is called. */
interface McpCase {
  /** the tools/call result; or, with `raw`, a line written as is (`$ID` becomes the request's id) */
  result?: unknown;
  raw?: string;
  /** a JSON text nested this deep, as the result's structuredContent (built as text: JSON.stringify overflows) */
  deep?: number;
  /** notifications written before the answer: progress with a message of this many characters */
  progress?: number[];
  outputSchema?: unknown;
  /** the server exits with this code instead of answering */
  crash?: number;
}

/** A minimal stdio MCP server in plain JavaScript (no SDK: it must be able to send anything). */
const MCP_SERVER = `const fs = require('fs');
const c = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); handle(line); }
});
function handle(line) {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fuzz', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 't', inputSchema: { type: 'object' }, ...(c.outputSchema !== undefined ? { outputSchema: c.outputSchema } : {}) }] } });
  else if (m.method === 'tools/call') {
    for (const n of c.progress || []) send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: (m.params._meta || {}).progressToken ?? 0, progress: 1, message: 'p'.repeat(n) } });
    if (c.crash !== undefined) process.exit(c.crash);
    if (c.raw !== undefined) process.stdout.write(c.raw.split('$ID').join(JSON.stringify(m.id)) + '\\n');
    else if (c.deep !== undefined) process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[],"structuredContent":' + '{"a":'.repeat(c.deep) + '1' + '}'.repeat(c.deep) + '}}\\n');
    else send({ jsonrpc: '2.0', id: m.id, result: c.result });
  } else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
}
`;

const mcpDir = path.join(dir, 'mcp');
const MCP_SERVER_FILE = path.join(mcpDir, 'server.cjs');
const MCP_CASE_FILE = path.join(mcpDir, 'case.json');
const MCP_PROGRAM_FILE = path.join(mcpDir, 'p.tn');

function mcpProgram(): string {
  const launch = JSON.stringify({ command: process.execPath, args: [MCP_SERVER_FILE, MCP_CASE_FILE] });
  return `let server = ${launch};
try { let r = call("mcp_call", null, server, "t", {}); call("echo", "got " + call("type_of", r)); } catch (e) { call("echo", "caught " + e["type"]); }
try { let r = call("mcp_call", null, server, "t", {}); call("echo", "again " + call("type_of", r)); } catch (e) { call("echo", "caught again " + e["type"]); }
`;
}

async function throughAnMcpServer(input: string): Promise<string | null> {
  if (!fs.existsSync(MCP_PROGRAM_FILE)) {
    fs.mkdirSync(mcpDir, { recursive: true });
    fs.writeFileSync(MCP_SERVER_FILE, MCP_SERVER);
    fs.writeFileSync(MCP_PROGRAM_FILE, mcpProgram());
  }
  fs.writeFileSync(MCP_CASE_FILE, input);
  let run;
  try {
    // a server that answers garbage is bounded by the tool's time limit: short here, so a case ends soon
    run = await startRun({ file: MCP_PROGRAM_FILE, cwd: mcpDir, model: 'mock', fetchSchemas: false, toolTimeoutMs: 3_000, authority: { allowRun: [process.execPath] }, onOutput: () => {} });
  } catch (e) {
    return `startRun threw ${describe(e)}`;
  }
  return judged(run, 'run', 20_000);
}

const mcpContent = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 40 }) }),
  fc.record({ type: fc.constantFrom('image', 'audio'), data: fc.base64String({ maxLength: 40 }), mimeType: fc.string({ maxLength: 10 }) }),
  fc.jsonValue({ maxDepth: 2 }),
);

const mcpCase: fc.Arbitrary<McpCase> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ result: fc.record({ content: fc.array(mcpContent, { maxLength: 3 }), structuredContent: fc.jsonValue({ maxDepth: 4 }), isError: fc.boolean() }, { requiredKeys: [] }), outputSchema: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.string({ maxLength: 4 }), fc.record({ type: fc.constantFrom('string', 'number', 'object'), pattern: fc.constantFrom('^(a+)+$', '(x|x)*y', '^a', '(?=a)a', '\\\\1') }, { requiredKeys: ['type'] }), { maxKeys: 3 }) })) }, { requiredKeys: ['result'] }) },
  { weight: 2, arbitrary: fc.record({ result: fc.jsonValue({ maxDepth: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ raw: fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.jsonValue({ maxDepth: 3 }).map((v) => `{"jsonrpc":"2.0","id":$ID,"result":${JSON.stringify(v)}}`), fc.constant('{"jsonrpc":"2.0","id":$ID,"error":{"code":-32000,"message":"no"}}'), fc.constant('{"jsonrpc":"2.0","id":"other","result":{}}')) }) },
  { weight: 1, arbitrary: fc.record({ deep: fc.integer({ min: 1, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.record({ progress: fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 50 }), result: fc.constant({ content: [] }) }) },
  { weight: 1, arbitrary: fc.record({ crash: fc.integer({ min: 0, max: 3 }) }) },
);

// ---- a model file's header ----------------------------------------------------------------------------

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt.asUintN(64, n));
  return b;
};
const gstr = (s: string): Buffer => Buffer.concat([u64(BigInt(Buffer.byteLength(s))), Buffer.from(s)]);

interface GgufCase {
  version: number;
  /** the counts the header claims (any 64-bit value) */
  tensors: string;
  kvs: string;
  /** metadata entries as written: a key, a value type and (for strings and arrays) a claimed length */
  entries: { key: string; type: number; length: string; elem: number }[];
  /** byte edits of the result: [position in 1/10000, byte] */
  edits: [number, number][];
}

/** A GGUF file from a case: a plausible header with hostile counts, lengths and types. */
function ggufBytes(c: GgufCase): Buffer {
  const parts: Buffer[] = [Buffer.from('GGUF'), u32(c.version), u64(BigInt(c.tensors)), u64(BigInt(c.kvs))];
  for (const e of c.entries) {
    parts.push(gstr(e.key), u32(e.type));
    if (e.type === 8) parts.push(u64(BigInt(e.length)), Buffer.from('x'.repeat(Math.min(Number(BigInt.asUintN(16, BigInt(e.length))), 64))));
    else if (e.type === 9) parts.push(u32(e.elem), u64(BigInt(e.length)), Buffer.alloc(16));
    else parts.push(Buffer.alloc(8));
  }
  parts.push(gstr('t'), u32(1), u64(4n), u32(0), u64(0n), Buffer.alloc(64));
  const bytes = Buffer.concat(parts);
  for (const [at, byte] of c.edits) bytes[Math.floor((at / 10_000) * bytes.length) % bytes.length] = byte;
  return bytes;
}

const bigCount = fc.oneof(fc.bigInt({ min: 0n, max: 8n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constantFrom(1n << 62n, (1n << 63n) - 1n, (1n << 64n) - 1n)).map(String);

const ggufFile = path.join(dir, 'fuzz.gguf');

async function throughAGgufHeader(input: string): Promise<string | null> {
  fs.writeFileSync(ggufFile, ggufBytes(JSON.parse(input) as GgufCase));
  const t0 = performance.now();
  try {
    checkGgufHeader(ggufFile);
  } catch (e) {
    if (!(e instanceof GgufError)) return `checkGgufHeader threw ${describe(e)}`;
  }
  const ms = performance.now() - t0;
  // a header is read in a bounded window: a check that takes seconds reads what a header claims
  return ms > 2_000 ? `checking a ${fs.statSync(ggufFile).size}-byte header took ${Math.round(ms)} ms` : null;
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

/**
 * What a run stopped by a damaged store says: it names the store (StoreError's messages: "the Turn
 * store FILE is corrupt...", "cannot append to the journal in the Turn store FILE", a constraint the
 * damage broke "... (store FILE)"), or a replay that no longer matches its journal (a journal row's
 * bytes changed: the journal has no checksum, so the damage reads as a divergence). Stopping there is
 * right; going on with a wrong value is not.
 */
const DAMAGED_STORE = /^resume (aborted|threw StoreError): .*(the Turn store |\(store )\S+|^resume aborted: replay diverged at step /;

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
    name: 'mcp-result',
    arbitrary: mcpCase.map((c) => JSON.stringify(c)),
    check: throughAnMcpServer,
  },
  {
    name: 'gguf-header',
    arbitrary: fc
      .record({
        version: fc.oneof(fc.constantFrom(2, 3), fc.nat()),
        tensors: bigCount,
        kvs: bigCount,
        entries: fc.array(fc.record({ key: fc.string({ maxLength: 12 }), type: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.nat()), length: bigCount, elem: fc.integer({ min: 0, max: 13 }) }), { maxLength: 6 }),
        edits: fc.array(fc.tuple(fc.nat(9_999), fc.nat(255)), { maxLength: 3 }),
      })
      .map((c) => JSON.stringify(c)),
    check: throughAGgufHeader,
  },
  {
    name: 'store',
    arbitrary: fc.record({ edits: fc.array(fc.tuple(fc.nat(9_999), fc.nat(255)), { minLength: 1, maxLength: 6 }) }).map((c) => JSON.stringify(c)),
    check: throughADamagedStore,
  },
];
