// A GGUF model file is outside input: its header's counts and lengths are held against the file's
// size before llama.cpp sees it (runtime/providers/gguf.ts). A header claiming 2^62 tensors once
// loaded for minutes, up to 4 GB, deaf to SIGTERM. The crafted files here are refused at once, in
// a few bytes of reading; a well-formed file (also read by node-llama-cpp's own GGUF reader, so the
// writer below writes real GGUF) passes. The `turn` command reaches the check through the llama:
// provider (its dynamic import of node-llama-cpp used to fail in the code-cached bundle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GGUF_MAX_HEADER_BYTES, GgufError, checkGgufHeader } from '../../runtime/providers/gguf.js';
import { loadWithin } from '../../runtime/providers/llama.js';
import { JS_STACK, turnAsync } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-gguf-'));

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint | number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const str = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);

/** A GGUF v3 file: metadata (architecture, a token list, their scores) and one F32 tensor of 4 values. */
function wellFormed(): Buffer[] {
  const kvs = [
    Buffer.concat([str('general.architecture'), u32(8), str('llama')]),
    Buffer.concat([str('tokenizer.ggml.tokens'), u32(9), u32(8), u64(3), str('a'), str('b'), str('c')]),
    Buffer.concat([str('tokenizer.ggml.scores'), u32(9), u32(6), u64(3), Buffer.alloc(12)]),
    Buffer.concat([str('general.alignment'), u32(4), u32(32)]),
  ];
  const tensor = Buffer.concat([str('t'), u32(1), u64(4), u32(0), u64(0)]);
  const head = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(1), u64(kvs.length), ...kvs, tensor]);
  const pad = Buffer.alloc((32 - (head.length % 32)) % 32);
  return [head, pad, Buffer.alloc(16)];
}

function write(name: string, ...parts: Buffer[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(parts));
  return file;
}

test('a well-formed GGUF header passes, and node-llama-cpp reads the same file', async () => {
  const file = write('ok.gguf', ...wellFormed());
  const h = checkGgufHeader(file);
  assert.deepEqual({ version: h.version, tensors: h.tensors, metadata: h.metadata }, { version: 3, tensors: 1, metadata: 4 });
  const { readGgufFileInfo } = (await import('node-llama-cpp')) as unknown as { readGgufFileInfo(p: string): Promise<{ tensorInfo?: { name: string }[]; metadata: { general: { architecture: string } } }> };
  const info = await readGgufFileInfo(file);
  assert.equal(info.metadata.general.architecture, 'llama');
  assert.deepEqual(info.tensorInfo?.map((t) => t.name), ['t']);
});

test('crafted headers are refused at once with what is wrong and where, in bounded memory', () => {
  const header = (tensors: bigint | number, kvs: bigint | number) => Buffer.concat([Buffer.from('GGUF'), u32(3), u64(tensors), u64(kvs)]);
  const kv = (...parts: Buffer[]) => Buffer.concat([str('k'), ...parts]);
  const cases: [string, Buffer[], RegExp][] = [
    ['2^62 tensors', [header(2n ** 62n, 0), Buffer.alloc(64)], /the tensor count is 4611686018427387904, more than any file holds \(at byte 16 of 88\)/],
    ['a million tensors in 88 bytes', [header(1_000_000, 0), Buffer.alloc(64)], /the tensor count claims 1,000,000 items, more than the 64 bytes left in the file can hold/],
    ['2^40 metadata pairs', [header(0, 2n ** 40n), Buffer.alloc(64)], /the metadata count claims 1,099,511,627,776 items/],
    ['a key 2^40 bytes long', [header(0, 1), u64(2n ** 40n), Buffer.alloc(64)], /the key of metadata 0 claims 1,099,511,627,776 bytes, more than the 64 left in the file/],
    ['an array of 2^50 strings', [header(0, 1), kv(u32(9), u32(8), u64(2n ** 50n)), Buffer.alloc(64)], /the value of metadata 0 claims 1,125,899,906,842,624 items/],
    ['an array of 2^50 u64', [header(0, 1), kv(u32(9), u32(10), u64(2n ** 50n)), Buffer.alloc(64)], /the value of metadata 0 claims 9,007,199,254,740,992 bytes/],
    ['an array of arrays', [header(0, 1), kv(u32(9), u32(9), u64(1)), Buffer.alloc(64)], /an array of type 9, which GGUF arrays cannot hold/],
    ['an unknown value type', [header(0, 1), kv(u32(77)), Buffer.alloc(64)], /the value type 77, which GGUF does not have/],
    ['a tensor of 9 dimensions', [header(1, 0), str('t'), u32(9), Buffer.alloc(64)], /tensor 0 has 9 dimensions \(1 to 4\)/],
    ['a tensor past the end', [header(1, 0), str('t'), u32(1), u64(4), u32(0), u64(2n ** 40n)], /tensor 0's data starts at byte 1,099,511,627,776, past the end of the file/],
    ['a truncated header', [header(0, 1), str('a-key-of-some-length')], /the file ends inside the value type of metadata 0/],
    ['not GGUF', [Buffer.from('GGML'), Buffer.alloc(60)], /it does not start with "GGUF"/],
    ['GGUF version 1', [Buffer.from('GGUF'), u32(1), Buffer.alloc(60)], /GGUF version 1 is not supported/],
  ];
  const rss = process.memoryUsage().rss;
  for (const [name, parts, message] of cases) {
    const file = write(`${name.replace(/\W+/g, '-')}.gguf`, ...parts);
    assert.throws(() => checkGgufHeader(file), (e: unknown) => e instanceof GgufError && message.test(e.message) && e.message.startsWith(`${file} is not a valid GGUF model: `), name);
  }
  // nothing was allocated for what the headers claim (a refused 2^62 used to reach 4 GB)
  assert.ok(process.memoryUsage().rss - rss < 64 * 1024 * 1024);
});

test('any corruption of a well-formed file is accepted or refused as a GgufError, never another exception', () => {
  const good = Buffer.concat(wellFormed());
  let seed = 42;
  const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  const file = path.join(dir, 'mutated.gguf');
  let refused = 0;
  for (let round = 0; round < 2000; round++) {
    const bytes = Buffer.from(good.subarray(0, round % 5 === 0 ? next(good.length) : good.length));
    for (let k = 0; k < 1 + next(4); k++) if (bytes.length > 0) bytes[next(bytes.length)] = next(256);
    fs.writeFileSync(file, bytes);
    try {
      checkGgufHeader(file);
    } catch (e) {
      assert.ok(e instanceof GgufError, `round ${round}: ${String(e)}`);
      refused++;
    }
  }
  assert.ok(refused > 1000, `${refused} of 2000 corrupted files refused`);
});

test('a header longer than the bound is refused without reading it all (a sparse file)', () => {
  const file = path.join(dir, 'long-header.gguf');
  const start = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), str('k'), u32(8), u64(GGUF_MAX_HEADER_BYTES)]);
  fs.writeFileSync(file, start);
  fs.truncateSync(file, GGUF_MAX_HEADER_BYTES + 4096); // a hole: the string's bytes take no disk
  assert.throws(() => checkGgufHeader(file), /the header is over 256 MiB \(the value of metadata 0 ends at byte 268,435,501\)/);
  fs.rmSync(file);
});

test('a model load past its deadline, or cancelled, ends at once and aborts the load', async () => {
  const never = (seen: AbortSignal[]) => (signal: AbortSignal) => {
    seen.push(signal);
    return new Promise<never>(() => {});
  };
  const timedOut: AbortSignal[] = [];
  await assert.rejects(loadWithin(never(timedOut), 20, undefined, 'the model m.gguf'), /loading the model m\.gguf took longer than 0\.02 s \(raise the model option load_timeout, in seconds\)/);
  assert.equal(timedOut[0].aborted, true);

  const cancelled: AbortSignal[] = [];
  const interrupt = new AbortController();
  const loading = loadWithin(never(cancelled), 60_000, interrupt.signal, 'the model m.gguf');
  interrupt.abort(); // what SIGINT and SIGTERM do to a run's model calls
  await assert.rejects(loading, /loading the model m\.gguf was cancelled/);
  assert.equal(cancelled[0].aborted, true);
});

test('turn run --model llama:FILE reaches the GGUF check through the code-cached CLI, cold and warm', async () => {
  const file = write('crafted.gguf', Buffer.from('GGUF'), u32(3), u64(2n ** 62n), u64(0), Buffer.alloc(64));
  fs.writeFileSync(path.join(dir, 'ask.tn'), 'struct Pet { name: Str };\nlet p = infer Pet { "Describe a cat."; };\ncall("echo", p.name);\n');
  // a cache folder of its own: the first run compiles and writes a code cache, the second starts from it
  const env = { TURN_CACHE_DIR: path.join(dir, 'cache'), TURN_CODE_CACHE_DEBUG: '1' };
  for (const start of ['cold', 'warm']) {
    const r = await turnAsync(['run', 'ask.tn', '--model', `llama:${file}`], { cwd: dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /ask\.tn:2:9: runtime error: infer Pet: the model call failed: .*crafted\.gguf is not a valid GGUF model: the tensor count is 4611686018427387904, more than any file holds/, `${start}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /dynamic import|ExperimentalWarning/);
    assert.doesNotMatch(r.stderr, JS_STACK);
    if (start === 'warm') assert.match(r.stderr, /code cache: hit/);
  }
});
