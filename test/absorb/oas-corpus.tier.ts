// The OpenAPI corpus tier (`npm run test:corpus`, part of `npm test`): every OpenAPI 3.x document
// of `@readme/oas-examples` (its JSON copy of each), served by `prism mock --errors` (Prism
// validates each request against the spec and answers a violation with an error), absorbed, and
// every operation called through the absorbed client twice — with every optional parameter and
// body field, and with none — with values made from the spec's schemas (oas-values.ts). A call is
// accepted when Prism answers 2xx, bound when its reply decodes and conforms to the absorbed type.
//
// test/absorb/oas-expected-failures.yml lists the calls that may fail, each with its reason; the
// tier fails when a call outside it fails or one inside it passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startRun, MemoryVault } from '../../runtime/index.js';
import { absorbSchema, type AbsorbedOperation } from '../../runtime/absorb/index.js';
import { uniqueName } from '../../runtime/absorb/schema.js';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { deref, resolvePointer, validValue, type Validate, type Variant } from './oas-values.js';

const ROOT = path.join(__dirname, '..', '..');
const EXAMPLES = path.join(ROOT, 'node_modules', '@readme', 'oas-examples');
const PRISM = path.join(ROOT, 'node_modules', '.bin', 'prism');
const EXPECTED = path.join(__dirname, 'oas-expected-failures.yml');
/** Documents served and called at once (the machine has 2 cores). */
const CONCURRENCY = 3;
/** How long Prism may take to say it listens before the document fails (it normally takes ~1 s). */
const PRISM_START_MS = 60_000;
const SECRET = 'corpus-secret-7f3a';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

/** Every OpenAPI 3.x document, one copy of each (the JSON one), sorted. */
function documents(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json')) {
        const doc = JSON.parse(fs.readFileSync(p, 'utf8')) as Obj;
        if (typeof doc.openapi === 'string' && /^3\./.test(doc.openapi)) out.push(p);
      }
    }
  };
  for (const v of ['3.0', '3.1']) walk(path.join(EXAMPLES, v, 'json'));
  return out;
}

/** A running `prism mock`: its base URL; `stop` ends it and waits until it has exited. */
interface Prism {
  base: string;
  stop(): Promise<void>;
  /** The error Prism died of, from its output (its stack's first lines), if it did. */
  crash(): string | undefined;
}

/** Starts Prism on a free port (port 0: Prism says which), resolving when it says it listens. */
function startPrism(spec: string): Promise<Prism> {
  const child: ChildProcess = spawn(PRISM, ['mock', '--errors', '-h', '127.0.0.1', '-p', '0', spec], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise<Prism>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop().then(() => reject(new Error(`prism did not listen within ${PRISM_START_MS} ms: ${out.slice(-2000)}`)));
    }, PRISM_START_MS);
    const onData = (chunk: Buffer) => {
      if (out.length < 1_000_000) out += chunk.toString('utf8');
      const m = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ base: m[1], stop, crash: () => /\n(\S+Error: [^\n]*\n\s+at [^\n]*)/.exec(out)?.[1].replace(/\s+/g, ' ').replace(/\/\S*node_modules\//g, '') });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8').slice(0, 100_000)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      reject(new Error(`prism exited (${code}) before listening: ${out.slice(-2000)}`));
    });
  });
}

/** The parameters of an operation in the order its closure takes them (module.ts's boundParams). */
function ordered(op: AbsorbedOperation) {
  return [...op.params.filter((p) => !p.optional), ...op.params.filter((p) => p.optional)];
}

/** The operation keys the module gives (module.ts's keyedOperations). */
function keys(ops: readonly AbsorbedOperation[]): string[] {
  const taken = new Set(['client', 'unvalidated']);
  return ops.map((op) => uniqueName(op.name, taken));
}

/** A JSON value as a Turn expression (typed Any, so a map can stand for a struct). */
const turnValue = (v: unknown) => (v === undefined || v === null ? 'null' : `call("json_parse", ${JSON.stringify(JSON.stringify(v))})`);

/** The credential a call is sent with, as the spec's security says (a Turn identity), or why none fits. */
function credential(doc: Obj, op: Obj): string {
  const reqs = (Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : []) as Obj[];
  if (reqs.length === 0 || reqs.some((r) => isObj(r) && Object.keys(r).length === 0)) return 'null';
  const schemes = isObj(doc.components) && isObj(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  for (const r of reqs) {
    const names = Object.keys(r);
    if (names.length !== 1) continue;
    const s = deref(doc, schemes[names[0]]);
    if (!isObj(s)) continue;
    if (s.type === 'http' && typeof s.scheme === 'string' && s.scheme.toLowerCase() === 'basic') return 'grant identity::basic("user:corpus_key")';
    if (s.type === 'http' || s.type === 'oauth2' || s.type === 'openIdConnect') return 'grant identity::bearer("corpus_key")';
    if (s.type === 'apiKey' && s.in === 'header') return `grant identity::header(${JSON.stringify(`${String(s.name)}:corpus_key`)})`;
    if (s.type === 'apiKey' && s.in === 'query') return `grant identity::query(${JSON.stringify(`${String(s.name)}:corpus_key`)})`;
    if (s.type === 'apiKey' && s.in === 'cookie') return `grant identity::cookie(${JSON.stringify(`${String(s.name)}:corpus_key`)})`;
  }
  return 'null';
}

/** The spec's schema of each absorbed parameter (operation-level over path-level), and of the body. */
function specOf(doc: Obj, op: AbsorbedOperation): { params: Map<string, unknown>; body?: unknown } {
  const pathItem = resolvePointer(doc, op.origin.replace(/\/[a-z]+$/, '')) as Obj;
  const opObj = resolvePointer(doc, op.origin) as Obj;
  const params = new Map<string, unknown>();
  for (const list of [pathItem?.parameters, opObj?.parameters]) {
    for (const x of Array.isArray(list) ? list : []) {
      const p = deref(doc, x);
      if (!isObj(p)) continue;
      const schema = p.schema ?? (isObj(p.content) ? (Object.values(p.content)[0] as Obj)?.schema : undefined);
      params.set(`${String(p.in)}:${String(p.name)}`, p.example !== undefined ? { example: p.example, ...(schema as Obj) } : schema);
    }
  }
  const rb = deref(doc, opObj?.requestBody);
  const media = op.body && isObj(rb) && isObj(rb.content) ? (rb.content[op.body.contentType] as Obj) : undefined;
  return { params, ...(media ? { body: media.schema ?? {} } : {}) };
}

interface Outcome {
  operation: string;
  variant: Variant;
  /** 'bound', or the error's type (HttpError, ReplyError, MediaTypeError, RequestError, ...) and message */
  result: string;
  accepted: boolean;
  bound: boolean;
}

/** One call: an operation (under its key in the module) with every optional value or none. */
interface Call {
  op: AbsorbedOperation;
  key: string;
  variant: Variant;
}

/** A validator of the document's schemas (OpenAPI 3.0: draft-07 plus its own keywords, ignored; 3.1: 2020-12). */
function validatorFor(doc: Obj): Validate {
  const ajv = /^3\.1/.test(String(doc.openapi)) ? new Ajv2020({ strict: false, validateFormats: false, allErrors: false }) : new Ajv({ strict: false, validateFormats: false, allErrors: false });
  const compiled = new Map<unknown, ((v: unknown) => boolean) & { errors?: unknown }>();
  return (schema, value) => {
    let check = compiled.get(schema);
    if (!check) {
      try {
        const { $schema: _drop, ...rest } = (isObj(schema) ? schema : {});
        check = ajv.compile({ ...rest, components: doc.components ?? {} }) as ((v: unknown) => boolean) & { errors?: unknown };
      } catch {
        check = Object.assign(() => true, { errors: undefined });
      }
      compiled.set(schema, check);
    }
    return check(value) ? [] : (check.errors as { instancePath: string; message?: string }[] | undefined ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  };
}

/** The Turn program that makes `calls` on `base`, each call in its own try/catch, reporting one line each. */
function program(specFile: string, base: string, doc: Obj, calls: Call[], invalid: Map<string, string>): string {
  const lines = [
    `let api = use schema::openapi(${JSON.stringify(path.basename(specFile))});`,
    `let c = api.client(${JSON.stringify(base)});`,
    'let attempt = turn(op: Str, variant: Str, f: Any) {',
    '    try {',
    '        let v = f();',
    '        call("echo", "CALL\\t" + op + "\\t" + variant + "\\tbound");',
    '    } catch (e) {',
    '        call("echo", "CALL\\t" + op + "\\t" + variant + "\\t" + call("json_stringify", e));',
    '    }',
    '};',
  ];
  const validate = validatorFor(doc);
  for (const { op, key, variant } of calls) {
    // a value no candidate of which validates is still sent (Prism is the judge); the outcome says why
    const value = (schema: unknown, v: Variant) => {
      const made = validValue(doc, schema, v, validate);
      if (made.errors.length > 0) invalid.set(`${key}\t${variant}`, made.errors.slice(0, 2).join('; '));
      return made.value;
    };
    const spec = specOf(doc, op);
    const auth = credential(doc, resolvePointer(doc, op.origin) as Obj);
    const args = [auth, ...ordered(op).map((p) => (p.optional && variant === 'none' ? 'null' : turnValue(value(spec.params.get(`${p.in}:${p.wireName}`) ?? {}, variant))))];
    if (op.body) args.push(op.body.optional && variant === 'none' ? 'null' : turnValue(value(spec.body ?? {}, variant)));
    lines.push(`attempt(${JSON.stringify(key)}, "${variant}", turn() { return c[${JSON.stringify(key)}](${args.join(', ')}); });`);
  }
  return lines.join('\n') + '\n';
}

/** What a caught error says: accepted when the service answered 2xx (the reply may still not bind). */
function outcome(operation: string, variant: Variant, text: string): Outcome {
  if (text === 'bound') return { operation, variant, result: 'bound', accepted: true, bound: true };
  let e: unknown = text;
  try {
    e = JSON.parse(text);
  } catch {
    /* a Str error */
  }
  const type = isObj(e) && typeof e.type === 'string' ? e.type : 'Error';
  const status = isObj(e) && typeof e.status === 'number' ? ` ${e.status}` : '';
  const message = isObj(e) && typeof e.message === 'string' ? e.message : String(e);
  // Prism says what it found wrong in a problem+json body
  const detail = isObj(e) && typeof e.body === 'string' ? ` ${e.body}` : '';
  // the service took the request: it answered 2xx (the reply then did not bind), or a status the
  // operation declares that is not one of Prism's request violations (an operation with no 2xx)
  const prismAnswer = /stoplight\.io\/prism\/errors#([A-Z_]+)/.exec(detail)?.[1];
  // Prism's own 500s after a valid request: no response declared, or its example reply violates the spec
  const requestValid = prismAnswer === 'NO_RESPONSE_RESPONSE_DEFINED' || (prismAnswer === 'VIOLATIONS' && !/"location":\["(body|query|path|header|cookie)"/.test(detail));
  const accepted = type === 'ReplyError' || type === 'MediaTypeError' || (type === 'HttpError' && (prismAnswer === undefined || requestValid));
  return { operation, variant, result: `${type}${status}: ${message}${detail}`.slice(0, 600), accepted, bound: false };
}

interface DocResult {
  document: string;
  /** wall-clock seconds the document took (Prism's starts included) */
  seconds?: number;
  operations: number;
  outcomes: Outcome[];
}

async function runDocument(file: string, work: string): Promise<DocResult> {
  const document = path.relative(EXAMPLES, file);
  const dir = fs.mkdtempSync(path.join(work, 'doc-'));
  const specFile = path.join(dir, path.basename(file));
  fs.copyFileSync(file, specFile);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Obj;
  const absorbed = await absorbSchema('openapi', path.basename(specFile), dir, { cacheDir: path.join(dir, '.schemas') });
  const errors = absorbed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { document, operations: 0, outcomes: [{ operation: '*', variant: 'all', result: `absorb: ${errors[0].message} at ${errors[0].pointer}`, accepted: false, bound: false }] };
  const ops = absorbed.operations;
  if (ops.length === 0) return { document, operations: 0, outcomes: [] };
  // Prism crashes on some requests (the outcome says which); the calls after it are made again on
  // a new Prism, so one crash does not fail the rest of the document
  const opKeys = keys(ops);
  let pending: Call[] = ops.flatMap((op, i) => (['all', 'none'] as const).map((variant) => ({ op, key: opKeys[i], variant })));
  const outcomes: Outcome[] = [];
  // after a first crash, the next Prism is started while the current one serves (a standby)
  let standby: Promise<Prism> | undefined;
  /** The calls Prism died on once (each is made again, once). */
  const crashedOnce = new Set<string>();
  try {
    for (let round = 0; pending.length > 0 && round <= 4 * ops.length; round++) {
      const prism = await (standby ?? startPrism(specFile));
      standby = round > 0 ? startPrism(specFile) : undefined;
      standby?.catch(() => undefined); // a standby that fails to start is reported where it is awaited
      const lines: string[] = [];
      let failure: string | undefined;
      let crashed: string | undefined;
      const invalid = new Map<string, string>();
      try {
        const tn = path.join(dir, `calls-${round}.tn`);
        fs.writeFileSync(tn, program(specFile, prism.base, doc, pending, invalid));
        const run = await startRun({ file: tn, cwd: dir, model: 'mock', authority: { allowNet: ['127.0.0.1:*'], vault: new MemoryVault({ corpus_key: SECRET }) }, fetchSchemas: false, onOutput: (l) => lines.push(l) });
        const result = await run.start();
        if (result.kind !== 'done') failure = `run ${result.kind}: ${JSON.stringify(result).slice(0, 400)}`;
      } finally {
        crashed = prism.crash();
        await prism.stop();
      }
      const reported = lines.filter((l) => l.startsWith('CALL\t')).map((l) => {
        const [, operation, variant, ...rest] = l.split('\t');
        return outcome(operation, variant as Variant, rest.join('\t'));
      });
      for (const o of reported) {
        const why = invalid.get(`${o.operation}\t${o.variant}`);
        if (why !== undefined && !o.bound) o.result = `[no generated value validates (ajv): ${why}] ${o.result}`;
      }
      const crash = reported.findIndex((o) => /failed: (UND_ERR_SOCKET|ECONNRESET|ECONNREFUSED)/.test(o.result));
      // a call Prism died on is made once more, on the next Prism: a crash it causes again is Prism's
      // bug on that request (listed), a crash once is a Prism that died under load (not the call's)
      const again = crash >= 0 && !crashedOnce.has(`${reported[crash].operation}\t${reported[crash].variant}`);
      if (again) crashedOnce.add(`${reported[crash].operation}\t${reported[crash].variant}`);
      const kept = crash < 0 ? reported : reported.slice(0, again ? crash : crash + 1);
      if (crash >= 0 && !again) kept[crash].result = `Prism crashed on this request (${crashed ?? 'no error printed'}): ${kept[crash].result}`;
      outcomes.push(...kept);
      const made = new Set(kept.map((o) => `${o.operation}\t${o.variant}`));
      pending = pending.filter((c) => !made.has(`${c.key}\t${c.variant}`));
      if (crash < 0) {
        if (failure) outcomes.push({ operation: '*', variant: 'all', result: failure, accepted: false, bound: false });
        break;
      }
    }
  } finally {
    // the standby not used is stopped and reaped too (a start that failed has nothing to stop)
    if (standby) await standby.then((p) => p.stop(), () => undefined);
  }
  return { document, operations: ops.length, outcomes };
}

interface Expected {
  document: string;
  operation: string;
  variant: Variant | 'both';
  reason: string;
}

function expectedFailures(): Expected[] {
  const list = (parseYaml(fs.readFileSync(EXPECTED, 'utf8')) ?? []) as Expected[];
  for (const e of list) assert.ok(e.document && e.operation && e.variant && typeof e.reason === 'string' && e.reason.length > 10, `an expected failure needs document, operation, variant and a reason: ${JSON.stringify(e)}`);
  return list;
}

test('every OpenAPI 3.x document of @readme/oas-examples: each call of each operation accepted by Prism and its reply bound, or listed with its reason', { timeout: 1_800_000 }, async (t) => {
  const docs = documents();
  assert.ok(docs.length >= 50, `${docs.length} documents`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-oas-corpus-'));
  process.env.TURN_SCHEMA_DIR ??= path.join(work, '.schemas');
  const started = Date.now();
  const cpuStart = process.cpuUsage();
  const results: DocResult[] = [];
  const queue = [...docs];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
        const t0 = Date.now();
        const r = await runDocument(f, work);
        r.seconds = Math.round((Date.now() - t0) / 100) / 10;
        results.push(r);
        if (process.env.TURN_CORPUS_REPORT) fs.writeFileSync(process.env.TURN_CORPUS_REPORT, JSON.stringify(results, null, 2));
      }
    }),
  );
  results.sort((a, b) => a.document.localeCompare(b.document));
  const expected = expectedFailures();
  const isExpected = (d: string, o: Outcome) => expected.find((e) => e.document === d && e.operation === o.operation && (e.variant === 'both' || e.variant === o.variant));
  const unexpected: string[] = [];
  const total = { documents: results.length, operations: 0, calls: 0, accepted: 0, bound: 0 };
  for (const r of results) {
    const calls = r.outcomes.filter((o) => o.operation !== '*');
    const accepted = calls.filter((o) => o.accepted).length;
    const bound = calls.filter((o) => o.bound).length;
    t.diagnostic(`${r.document}: ${r.operations} operations, ${calls.length} calls, ${accepted} accepted, ${bound} bound (${r.seconds} s)`);
    total.operations += r.operations;
    total.calls += calls.length;
    total.accepted += accepted;
    total.bound += bound;
    for (const o of r.outcomes) {
      const listed = isExpected(r.document, o);
      if (!o.bound && !listed) unexpected.push(`${r.document} ${o.operation} (${o.variant}) failed: ${o.result}`);
      if (o.bound && listed) unexpected.push(`${r.document} ${o.operation} (${o.variant}) passes but is listed as an expected failure: ${listed.reason}`);
    }
    if (r.operations > 0 && calls.length !== 2 * r.operations) unexpected.push(`${r.document}: ${calls.length} calls reported for ${r.operations} operations`);
  }
  const cpu = process.cpuUsage(cpuStart);
  t.diagnostic(`total: ${JSON.stringify(total)} in ${Math.round((Date.now() - started) / 1000)} s (this process's CPU: ${Math.round((cpu.user + cpu.system) / 1e6)} s; Prism's not counted)`);
  assert.deepEqual(unexpected, []);
});
