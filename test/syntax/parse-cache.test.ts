// The parse cache (runtime/syntax/parse-cache.ts): an entry is used only for the tag, path and text
// it was written for, a damaged one is ignored and replaced, and what it gives back is the parse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseSource } from '../../runtime/syntax/parse.js';
import { cachedParse, encodeParseEntry, parseCacheFile, useParseCache, type ParseCache } from '../../runtime/syntax/parse-cache.js';
import { checkSource } from '../../runtime/check/index.js';
import { compileBundle } from '../../runtime/compile/index.js';
import type { Program } from '../../runtime/syntax/ast.js';

const ROOT = path.join(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-parse-cache-'));
const FILE = 'greet.tn';
const TEXT = 'let x = 1;\ncall("echo", x + 1);\n';

function cacheIn(name: string, tag = 'build A'): ParseCache {
  return { dir: path.join(tmp, name), tag };
}

/** An entry whose program says `marker`: a parse of TEXT can never produce it. */
async function plantMarker(cache: ParseCache, text = TEXT): Promise<void> {
  const real = await parseSource(FILE, text);
  const program = { ...real.program, marker: true } as Program;
  fs.mkdirSync(cache.dir, { recursive: true });
  fs.writeFileSync(parseCacheFile(cache, FILE), encodeParseEntry(cache, FILE, text, { program, diagnostics: real.diagnostics }));
}

const fromCache = (r: { program: Program }): boolean => (r.program as Program & { marker?: boolean }).marker === true;

test.afterEach(() => useParseCache(undefined));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('an entry for the same tag, path and text is used instead of a parse', async () => {
  const cache = cacheIn('hit');
  await plantMarker(cache);
  useParseCache(cache);
  const r = await cachedParse(FILE, TEXT);
  assert.ok(fromCache(r));
  assert.equal(r.file.path, FILE);
  assert.equal(r.file.text, TEXT);
});

test('a changed text, another path or another tag parses again and replaces the entry', async () => {
  const cache = cacheIn('miss');
  await plantMarker(cache);
  useParseCache(cache);
  const changed = TEXT.replace('1;', '2;');
  assert.ok(!fromCache(await cachedParse(FILE, changed)), 'changed text');
  // the entry now holds the changed text's parse: the original text misses too
  assert.ok(!fromCache(await cachedParse(FILE, TEXT)));

  await plantMarker(cache);
  useParseCache({ ...cache, tag: 'build B' });
  assert.ok(!fromCache(await cachedParse(FILE, TEXT)), 'another build');

  await plantMarker(cache);
  useParseCache(cache);
  assert.ok(!fromCache(await cachedParse(`./${FILE}`, TEXT)), 'the same file under another name');
});

test('a damaged, truncated or foreign entry is ignored, and a good one written in its place', async () => {
  const cache = cacheIn('damaged');
  useParseCache(cache);
  const entry = parseCacheFile(cache, FILE);
  const damages: ((b: Buffer) => Buffer)[] = [
    (b) => {
      const c = Buffer.from(b);
      c[c.length - 10] ^= 0x01; // one bit of the payload
      return c;
    },
    (b) => b.subarray(0, b.length - 3),
    () => Buffer.from('not a cache\n\x00\x01'),
    () => Buffer.alloc(0),
  ];
  for (const damage of damages) {
    await plantMarker(cache);
    fs.writeFileSync(entry, damage(fs.readFileSync(entry)));
    const r = await cachedParse(FILE, TEXT);
    assert.ok(!fromCache(r));
    assert.ok(isDeepStrictEqual(r.program, (await parseSource(FILE, TEXT)).program));
    // replaced by a whole entry that the next parse uses
    assert.ok(fs.readFileSync(entry).toString('latin1').startsWith('turn-parse-cache 1 | '));
  }
});

test('what a hit gives back is the parse: same AST and diagnostics, same bytecode, for every example', async () => {
  const cache = cacheIn('examples');
  const files = fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.tn'));
  assert.ok(files.length > 5);
  let compiled = 0;
  for (const name of files) {
    const file = path.join('examples', name);
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const fresh = await parseSource(file, text);
    useParseCache(cache);
    await cachedParse(file, text); // writes
    const hit = await cachedParse(file, text);
    useParseCache(undefined);
    assert.ok(fs.existsSync(parseCacheFile(cache, file)), name);
    assert.ok(isDeepStrictEqual(hit.program, fresh.program), `${name}: AST`);
    assert.deepEqual(hit.diagnostics, fresh.diagnostics, `${name}: diagnostics`);
    if (fresh.diagnostics.some((d) => d.severity === 'error')) continue;
    const abs = path.join(ROOT, file);
    const checked = await checkSource(file, text, { fetch: false });
    useParseCache(cache);
    const checkedHit = await checkSource(file, text, { fetch: false });
    useParseCache(undefined);
    const unit = (c: typeof checked) => ({ path: abs, file: c.file, program: c.program, uses: c.uses });
    if (checked.uses.size > 0 || checked.diagnostics.some((d) => d.severity === 'error')) continue;
    assert.equal(compileBundle([unit(checkedHit)], abs).version, compileBundle([unit(checked)], abs).version, `${name}: bytecode`);
    compiled++;
  }
  assert.ok(compiled > 3, `${compiled} examples compiled`);
});

test('the folder is kept to maxEntries: past it, the entries written or used longest ago go, and one in use stays', async () => {
  const cache: ParseCache = { ...cacheIn('pruned'), maxEntries: 8 };
  useParseCache(cache);
  const files = Array.from({ length: 8 }, (_, i) => `f${i}.tn`);
  for (const f of files) await cachedParse(f, TEXT);
  const entries = () => fs.readdirSync(cache.dir).filter((n) => n.endsWith('.bin'));
  assert.equal(entries().length, 8, 'up to maxEntries nothing is removed');
  // f0..f7 written 8..1 days ago; f0 (the oldest) is then used, which renews it
  files.forEach((f, i) => {
    const at = (Date.now() - (8 - i) * 24 * 3600 * 1000) / 1000;
    fs.utimesSync(parseCacheFile(cache, f), at, at);
  });
  await cachedParse('f0.tn', TEXT);
  await cachedParse('f8.tn', TEXT); // the ninth entry: the folder is pruned to 6
  const left = new Set(entries());
  assert.equal(left.size, 6);
  const has = (f: string) => left.has(path.basename(parseCacheFile(cache, f)));
  assert.ok(has('f8.tn'), 'the entry just written stays');
  assert.ok(has('f0.tn'), 'the oldest entry, used since, stays');
  assert.ok(!has('f1.tn') && !has('f2.tn') && !has('f3.tn'), 'the three written longest ago and not used since go');
  assert.ok(has('f4.tn') && has('f7.tn'));
  // and what is left still answers
  assert.equal((await cachedParse('f7.tn', TEXT)).file.path, 'f7.tn');
});
