// `turn record RUN`: a stored run's model exchanges as a recording (docs/testing.md), so a bug seen
// in a real run becomes a test. Each `infer` step of the journal (runtime/durable: key `e<n>.<k>`,
// input hash = the request's fingerprint, payload = the model's reply) becomes one exchange. The
// journal keeps the prompt of a request but only the hash of its context and schema, so those are
// recorded as null: the recording replays exactly, and a stale request is diffed on its prompt.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bytesJson } from '../durable/index.js';
import { getRun } from '../durable/runs.js';
import { blocksOfEntries, reassembledOrNote } from '../durable/request-blocks.js';
import type { InferReply } from '../infer/types.js';
import type { RunRecord, RunStore } from '../store/types.js';
import { CassetteError, cassettePath, readCassette, writeCassette, type Cassette, type Exchange, type RecordedReply } from './cassette.js';
import { discoverTests } from './discover.js';
import { sampleTexts } from './exchanges.js';

export class RecordError extends Error {}

/** The run's model exchanges, in journal order. */
export function exchangesOfRun(store: RunStore, runId: string): { run: RunRecord; exchanges: Exchange[] } {
  const run = getRun(store, runId);
  const exchanges: Exchange[] = [];
  const entries = store.readJournal(run.id);
  const blocks = blocksOfEntries(run.id, entries);
  for (const e of entries) {
    if (e.kind !== 'infer') continue;
    if (e.inputHash === null) continue;
    // a request journaled as block references (runtime/durable/request-blocks.ts) is reassembled
    const asked = (reassembledOrNote(bytesJson(e.request), blocks) ?? {}) as { typeName?: string; prompt?: string; attempt?: number; options?: Record<string, number> };
    let reply: RecordedReply;
    if (e.status === 'ok') {
      const r = (bytesJson(e.payload) ?? {}) as InferReply;
      const text = typeof r.text === 'string' ? r.text : JSON.stringify(r.confidence === undefined ? { value: r.value ?? null } : { value: r.value ?? null, confidence: r.confidence });
      const out: RecordedReply & { text: string } = { text };
      if (r.logprobs && r.logprobs.length > 0) out.logprobs = r.logprobs.map((t) => (t.token === undefined ? t.logprob : { token: t.token, logprob: t.logprob }));
      if (r.usage && (r.usage.inputTokens !== undefined || r.usage.outputTokens !== undefined)) {
        out.usage = { ...(r.usage.inputTokens !== undefined ? { input: r.usage.inputTokens } : {}), ...(r.usage.outputTokens !== undefined ? { output: r.usage.outputTokens } : {}) };
      }
      if (r.finishReason) out.finish_reason = r.finishReason;
      const samples = sampleTexts(r.meta);
      if (samples) out.samples = samples;
      reply = out;
    } else if (e.status === 'error') reply = { error: String(bytesJson(e.payload)) };
    else continue; // no recorded outcome: nothing to replay
    exchanges.push({
      fingerprint: e.inputHash,
      type: asked.typeName ?? e.name,
      attempt: asked.attempt ?? 1,
      request: { system: null, context: null, prompt: asked.prompt ?? '', feedback: null, ...(asked.options ? { options: asked.options } : {}) },
      schema: null,
      reply,
    });
  }
  return { run, exchanges };
}

/** A Turn string literal (docs/language.md). */
function turnString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c < 0x20) out += `\\u{${c.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

export interface RecordOptions {
  /** the test file to record into (default: beside the run's program, `PROGRAM_test.tn`) */
  testFile?: string;
  /** the test's name (default `run RUNID`) */
  name?: string;
}

export interface Recorded {
  testFile: string;
  name: string;
  cassette: string;
  exchanges: number;
  /** the test file was made, or the test added to it */
  created: 'file' | 'test' | null;
}

/**
 * Writes run `runId`'s exchanges as the recording of test `name` in `testFile` (made when missing:
 * a test that runs the run's program). Throws RecordError, CassetteError or StoreError.
 */
export async function recordRun(store: RunStore, runId: string, options: RecordOptions = {}): Promise<Recorded> {
  const { run, exchanges } = exchangesOfRun(store, runId);
  const cwd = typeof run.meta.cwd === 'string' ? run.meta.cwd : process.cwd();
  const program = path.resolve(cwd, run.entry);
  const testFile = options.testFile ?? program.replace(/\.tn$/, '') + '_test.tn';
  const name = options.name ?? `run ${run.id}`;
  let rel = path.relative(path.dirname(path.resolve(testFile)), program).split(path.sep).join('/');
  if (!rel.startsWith('.')) rel = './' + rel;
  const body = `turn() {\n        // replays the model replies of stored run ${run.id}\n        let result = use ${turnString(rel)};\n    }`;
  let created: Recorded['created'] = null;
  if (!fs.existsSync(testFile)) {
    fs.writeFileSync(testFile, `// Tests of ${path.basename(program)} (docs/testing.md); run them with \`turn test ${path.basename(testFile)}\`.\nreturn {\n    ${turnString(name)}: ${body},\n};\n`);
    created = 'file';
  } else {
    const found = await discoverTests(testFile);
    if (found.error) throw new RecordError(found.error);
    if (!found.tests.some((t) => t.name === name)) {
      const text = fs.readFileSync(testFile, 'utf8');
      const close = lastMapClose(text);
      if (close < 0) throw new RecordError(`${testFile}: cannot find the end of its test map to add test "${name}"`);
      let before = text.slice(0, close).replace(/\s*$/, '');
      if (!before.endsWith(',') && !before.endsWith('{')) before += ',';
      fs.writeFileSync(testFile, `${before}\n    ${turnString(name)}: ${body},\n${text.slice(close)}`);
      created = 'test';
    }
  }
  const file = cassettePath(testFile);
  const existing = readCassette(file);
  const next: Cassette = { turn_cassette: 1, tests: { ...(existing?.cassette.tests ?? {}) } };
  const recordedModel = (run.meta.options as { model?: unknown } | undefined)?.model;
  next.tests[name] = { model: typeof recordedModel === 'string' ? recordedModel : 'unknown', exchanges };
  writeCassette(file, next);
  return { testFile, name, cassette: file, exchanges: exchanges.length, created };
}

/** The offset of the `}` that closes the test map of the file's last top-level `return {`. */
function lastMapClose(text: string): number {
  const m = [...text.matchAll(/^return\s*\{/gm)].pop();
  if (!m) return -1;
  let depth = 0;
  let inString = false;
  for (let i = m.index + m[0].length - 1; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) < 0 ? text.length : text.indexOf('*/', i + 2) + 1;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

export { CassetteError };
