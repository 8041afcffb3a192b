// What the fuzzer runs, and what counts as a failure. Every target feeds its input through the
// runtime in process, as a user would reach it: a failure is a JavaScript exception escaping where
// a located message belongs (`internal error`, a stack overflow, a TypeError), a message without
// a location, or a run that does not end within its limits (hangs are caught by the watchdog in
// run.ts, which runs the targets in a child process).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { compileProgram, formatSource, openStore, resumeRun, RunSetupError, startRun } from '../../runtime/index.js';
import { decodeSnapshot, decodeValue, encodeValue, SerializeError } from '../../runtime/store/serialize.js';
import { Cell, ClosureVal, StructVal, Uncertain } from '../../runtime/values/index.js';
import { PassThrough } from 'node:stream';
import {
  createConnection, createProtocolConnection, ErrorCodes, ProposedFeatures, ResponseError, StreamMessageReader, StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver/node';
import { startServer } from '../../language-server/server.js';
import { loadCorpus, mutate, OPERATIONS, VOCABULARY, type Mutation } from './mutate.js';
import { BOUNDARY_TARGETS, judged } from './boundary-targets.js';

export interface Target {
  name: string;
  /** inputs as fast-check generates (and shrinks) them */
  arbitrary: fc.Arbitrary<string>;
  /** null when the runtime handled the input well, else what went wrong */
  check(input: string): Promise<string | null>;
}

const BAD = /internal error|Maximum call stack|is not a function|Cannot read propert|undefined is not|is not iterable|RangeError|TypeError/;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fuzz-'));
let counter = 0;
const scratch = (name: string, content: string | Uint8Array): string => {
  const file = path.join(dir, `${++counter % 64}-${name}`);
  fs.writeFileSync(file, content);
  return file;
};

/** Checks, compiles, formats and runs one program file; returns what went wrong, if anything. */
async function throughTheRuntime(file: string, text: string | null): Promise<string | null> {
  try {
    await compileProgram(file, { fetchSchemas: false });
  } catch (e) {
    if (!(e instanceof RunSetupError)) return `compile threw ${describe(e)}`;
    if (BAD.test(e.message)) return `compile: ${e.message}`;
    for (const { diagnostic } of e.diagnostics) {
      if (BAD.test(diagnostic.message)) return `diagnostic: ${diagnostic.message}`;
      if (!diagnostic.span) return `a diagnostic without a location: ${diagnostic.message}`;
    }
    return text === null ? null : formatCheck(text);
  }
  if (text !== null) {
    const f = await formatCheck(text);
    if (f) return f;
  }
  let run;
  try {
    run = await startRun({ file, model: 'mock', maxSteps: 20_000, fetchSchemas: false, authority: { approve: 'none' }, onOutput: () => {} });
  } catch (e) {
    if (e instanceof RunSetupError && !BAD.test(e.message)) return null;
    return `startRun threw ${describe(e)}`;
  }
  const stop = setTimeout(() => run.stop('the fuzzer stopped a run that did not end within 5 s'), 5_000);
  try {
    const result = await run.start();
    if (result.kind === 'stopped') return 'the run did not end within 5 s under --max-steps 20000';
    if (result.kind === 'failed') {
      if (BAD.test(result.error.message)) return `run: ${result.error.message}`;
      if (!(result.error.line >= 1)) return `a run-time error without a line: ${result.error.message}`;
    }
    if (result.kind === 'aborted') return `run aborted: ${result.message}`;
    return null;
  } catch (e) {
    return `run threw ${describe(e)}`;
  } finally {
    clearTimeout(stop);
  }
}

async function formatCheck(text: string): Promise<string | null> {
  let once;
  try {
    once = await formatSource(text);
  } catch (e) {
    return `format threw ${describe(e)}`;
  }
  if (!once.ok) return BAD.test(once.message) ? `format: ${once.message}` : once.line >= 1 ? null : `a format error without a line: ${once.message}`;
  const twice = await formatSource(once.text);
  if (!twice.ok) return `formatted text does not format again: ${twice.message}`;
  if (twice.text !== once.text) return 'format is not idempotent';
  return null;
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

const cell = new Cell(1);
const SAMPLE_VALUES = [
  null,
  [1, 'two', true, null, [3.5, -0]],
  new Map<string, unknown>([['a', 1], ['b', [1, 2]]]),
  new StructVal('Point', new Map<string, unknown>([['x', 1], ['y', 'é語']]) as never),
  new Uncertain('maybe', 0.3),
  new ClosureVal(0, [cell, cell], 'f'),
] as unknown as Parameters<typeof encodeValue>[0][];

const corpus = loadCorpus();

const mutation: fc.Arbitrary<Mutation> = fc.tuple(fc.nat(OPERATIONS - 1), fc.nat(100_000), fc.nat(VOCABULARY.length * 6), fc.nat(200));

export const TARGETS: Target[] = [
  {
    name: 'program',
    arbitrary: fc
      .tuple(fc.nat(corpus.length - 1), fc.array(mutation, { minLength: 1, maxLength: 6 }))
      .map(([seed, mutations]) => mutate(corpus[seed], corpus, mutations)),
    check: (text) => throughTheRuntime(scratch('p.tn', text), text),
  },
  {
    name: 'text',
    // random Unicode and random bytes (base64: the input is stored as text)
    arbitrary: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }).map((s) => 'u:' + s),
      fc.uint8Array({ maxLength: 400 }).map((b) => 'b:' + Buffer.from(b).toString('base64')),
    ),
    check: (input) => {
      const bytes = input.startsWith('b:') ? Buffer.from(input.slice(2), 'base64') : Buffer.from(input.slice(2), 'utf8');
      return throughTheRuntime(scratch('t.tn', bytes), null);
    },
  },
  {
    name: 'value-bytes',
    // a stored value's bytes, corrupted: decoding must refuse them with SerializeError, never crash
    arbitrary: fc
      .tuple(fc.nat(SAMPLE_VALUES.length - 1), fc.array(fc.tuple(fc.nat(3), fc.nat(10_000), fc.nat(255)), { minLength: 1, maxLength: 8 }))
      .map(([i, edits]) => {
        const bytes = Array.from(encodeValue(SAMPLE_VALUES[i]));
        for (const [op, at, byte] of edits) {
          const k = at % (bytes.length + 1);
          if (op === 0) bytes[k] = byte;
          else if (op === 1) bytes.splice(k, 1);
          else if (op === 2) bytes.splice(k, 0, byte);
          else bytes.length = k;
        }
        return Buffer.from(bytes).toString('base64');
      }),
    check: async (input) => {
      const bytes = Buffer.from(input, 'base64');
      for (const decode of [decodeValue, decodeSnapshot] as ((b: Uint8Array) => unknown)[]) {
        try {
          decode(bytes);
        } catch (e) {
          if (!(e instanceof SerializeError)) return `${decode.name} threw ${describe(e)}`;
        }
      }
      return null;
    },
  },
  {
    name: 'spec',
    // an API spec of random JSON: absorbing it gives located diagnostics or a module, never a crash
    arbitrary: fc
      .tuple(fc.constantFrom('jsonschema', 'openapi'), fc.jsonValue({ maxDepth: 6 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }))
      .map(([protocol, value, schema]) => JSON.stringify({ protocol, spec: protocol === 'openapi' ? { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: value } : { type: 'object', properties: schema, ...(typeof value === 'object' && value && !Array.isArray(value) ? value : {}) } })),
    check: (input) => {
      const { protocol, spec } = JSON.parse(input) as { protocol: string; spec: unknown };
      const caseDir = fs.mkdtempSync(path.join(dir, 'spec-'));
      fs.writeFileSync(path.join(caseDir, 'spec.json'), JSON.stringify(spec));
      const program = `let api = use schema::${protocol}("spec.json");\ncall("echo", "ok");\n`;
      const file = path.join(caseDir, 'main.tn');
      fs.writeFileSync(file, program);
      return throughTheRuntime(file, program).finally(() => fs.rmSync(caseDir, { recursive: true, force: true }));
    },
  },
];

// ---- model replies: deep and huge, through a durable run and its resume

interface ReplyShape {
  /** how the reply is built */
  shape: 'lists' | 'maps' | 'mixed' | 'wide' | 'string' | 'keys';
  /** nesting depth, or size */
  n: number;
  /** the infer's type */
  type: 'Any' | 'Str' | 'List<Any>' | 'Shape';
  envelope: boolean;
  /** the reply cut at this fraction of its length (1 = whole) */
  cut: number;
}

/** The reply text of a shape, built as a string (JSON.stringify itself overflows on deep values). */
function replyText(r: ReplyShape): string {
  let body: string;
  switch (r.shape) {
    case 'lists':
      body = '['.repeat(r.n) + '1' + ']'.repeat(r.n);
      break;
    case 'maps':
      body = '{"a":'.repeat(r.n) + '1' + '}'.repeat(r.n);
      break;
    case 'mixed':
      body = '[{"k":'.repeat(r.n) + '"v"' + '}]'.repeat(r.n);
      break;
    case 'wide':
      body = '[' + Array.from({ length: r.n * 50 }, (_, i) => (i % 3 === 0 ? `"s${i}"` : i % 3 === 1 ? String(i) : '{"x":[1,2]}')).join(',') + ']';
      break;
    case 'string':
      body = JSON.stringify('é語x'.repeat(r.n * 500));
      break;
    case 'keys':
      body = '{' + Array.from({ length: r.n * 20 }, (_, i) => `"k${i}":${i}`).join(',') + '}';
      break;
  }
  const text = r.envelope ? `{"value":${body},"confidence":0.8}` : body;
  return r.cut >= 1 ? text : text.slice(0, Math.floor(text.length * r.cut));
}

async function throughADurableRun(input: string): Promise<string | null> {
  const r = JSON.parse(input) as ReplyShape;
  const caseDir = fs.mkdtempSync(path.join(dir, 'reply-'));
  const script = path.join(caseDir, 'replies.json');
  fs.writeFileSync(script, JSON.stringify({ replies: [{ text: replyText(r), repeat: true }] }));
  const file = path.join(caseDir, 'p.tn');
  fs.writeFileSync(
    file,
    `struct Shape { a: Any, k: Str }
let x = null;
try { let x = infer ${r.type} { "reply"; }; } catch (e) { call("echo", "caught " + e["type"]); }
suspend;
call("echo", call("type_of", x));
let s = null;
try { let s = call("json_stringify", x); } catch (e) { call("echo", "not JSON: " + e["message"]); }
`,
  );
  const store = openStore(path.join(caseDir, '.turn'));
  const model = `script:${script}`;
  const ended = (run: Parameters<typeof judged>[0], what: string) => judged(run, what, 20_000);
  try {
    let run;
    try {
      run = await startRun({ file, cwd: caseDir, model, store, maxSteps: 200_000, fetchSchemas: false, onOutput: () => {} });
    } catch (e) {
      // a reply too large for the fixture is refused up front with a clear message: a user error, not a failure
      if (e instanceof RunSetupError && !BAD.test(e.message) && /larger than/.test(e.message)) return null;
      return `startRun threw ${describe(e)}`;
    }
    const first = await ended(run, 'run');
    if (first) return first;
    const id = run.id!;
    if (store.getRun(id)?.status !== 'suspended') return `the run did not reach its suspend (${store.getRun(id)?.status})`;
    let resumed;
    try {
      resumed = await resumeRun({ runId: id, cwd: caseDir, model, store, onOutput: () => {} });
    } catch (e) {
      return `resumeRun threw ${describe(e)}`;
    }
    return await ended(resumed, 'resume');
  } finally {
    store.close();
    fs.rmSync(caseDir, { recursive: true, force: true });
  }
}

TARGETS.push({
  name: 'model-reply',
  arbitrary: fc
    .record({
      shape: fc.constantFrom('lists', 'maps', 'mixed', 'wide', 'string', 'keys'),
      n: fc.oneof(fc.integer({ min: 1, max: 1100 }), fc.integer({ min: 1, max: 20_000 })),
      type: fc.constantFrom('Any', 'Str', 'List<Any>', 'Shape'),
      envelope: fc.boolean(),
      cut: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) }),
    })
    .map((r) => JSON.stringify(r)),
  check: throughADurableRun,
});

// ---- the language server: sequences of LSP messages, well-formed and not

interface LspHarness {
  client: ProtocolConnection;
}

let lsp: Promise<LspHarness> | undefined;

function lspHarness(): Promise<LspHarness> {
  lsp ??= (async () => {
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    const server = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    startServer(server, { debounceMs: 0 });
    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    client.listen();
    await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await client.sendNotification('initialized', {});
    return { client };
  })();
  return lsp;
}

const LSP_REQUESTS = [
  'textDocument/hover', 'textDocument/completion', 'textDocument/definition', 'textDocument/references', 'textDocument/rename',
  'textDocument/documentSymbol', 'textDocument/semanticTokens/full', 'textDocument/formatting', 'textDocument/codeAction',
  'textDocument/foldingRange', 'textDocument/selectionRange', 'workspace/symbol', 'textDocument/prepareRename', 'textDocument/documentHighlight',
];
const LSP_NOTIFICATIONS = ['textDocument/didOpen', 'textDocument/didChange', 'textDocument/didClose', 'textDocument/didSave'];
const FUZZ_URI = 'file:///tmp/turn-fuzz/doc.tn';

/** A message's params: mostly well-formed around one document, sometimes any JSON at all. */
const lspParams = (text: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ textDocument: fc.record({ uri: fc.constant(FUZZ_URI), languageId: fc.constant('turn'), version: fc.nat(), text }), position: fc.record({ line: fc.integer({ min: -2, max: 60 }), character: fc.integer({ min: -2, max: 200 }) }), newName: fc.string(), contentChanges: fc.array(fc.oneof(fc.record({ text }), fc.record({ range: fc.record({ start: fc.record({ line: fc.nat(60), character: fc.nat(80) }), end: fc.record({ line: fc.nat(60), character: fc.nat(80) }) }), text })), { maxLength: 3 }), query: fc.string(), options: fc.record({ tabSize: fc.nat(8), insertSpaces: fc.boolean() }), context: fc.record({ diagnostics: fc.constant([]), includeDeclaration: fc.boolean() }), range: fc.record({ start: fc.record({ line: fc.nat(60), character: fc.nat(80) }), end: fc.record({ line: fc.nat(60), character: fc.nat(80) }) }) }, { requiredKeys: ['textDocument'] }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  );

const programText: fc.Arbitrary<string> = fc
  .tuple(fc.nat(1_000_000), fc.array(mutation, { maxLength: 4 }))
  .map(([seed, mutations]) => mutate(corpus[seed % corpus.length], corpus, mutations));

async function throughTheServer(input: string): Promise<string | null> {
  const { client } = await lspHarness();
  const messages = JSON.parse(input) as { method: string; params: unknown }[];
  for (const m of messages) {
    if (LSP_NOTIFICATIONS.includes(m.method)) {
      await client.sendNotification(m.method, m.params);
      continue;
    }
    try {
      await client.sendRequest(m.method, m.params);
    } catch (e) {
      if (!(e instanceof ResponseError)) return `${m.method} answered ${describe(e)}`;
      if (e.code === ErrorCodes.InternalError) return `${m.method} failed inside the server: ${e.message}`;
    }
  }
  // the server still answers a well-formed request on a fresh document
  const uri = 'file:///tmp/turn-fuzz/check.tn';
  await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text: 'let answer = 42;\ncall("echo", answer);\n' } });
  const symbols = await client.sendRequest<{ name: string }[] | null>('textDocument/documentSymbol', { textDocument: { uri } });
  await client.sendNotification('textDocument/didClose', { textDocument: { uri } });
  if (!symbols?.some((x) => x.name === 'answer')) return `after the sequence the server no longer answers a valid request (${JSON.stringify(symbols)})`;
  return null;
}

TARGETS.push({
  name: 'lsp',
  arbitrary: fc
    .array(fc.record({ method: fc.constantFrom(...LSP_NOTIFICATIONS, ...LSP_REQUESTS), params: lspParams(programText) }), { minLength: 1, maxLength: 8 })
    .map((messages) => JSON.stringify(messages)),
  check: throughTheServer,
});

// the boundaries where hostile data enters: a model server's bytes, a damaged store
TARGETS.push(...BOUNDARY_TARGETS);

export function targetNamed(name: string): Target {
  const t = TARGETS.find((x) => x.name === name);
  if (!t) throw new Error(`no fuzz target ${name} (targets: ${TARGETS.map((x) => x.name).join(', ')})`);
  return t;
}
