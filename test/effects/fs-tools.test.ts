import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFileEffect, writeFileEffect, listDirEffect, existsEffect } from '../../runtime/effects/fs.js';
import { EffectDenied } from '../../runtime/effects/capabilities.js';
import { MemoryVault } from '../../runtime/effects/vault.js';
import { granted } from './granted.js';
import {
  envGet, fsRead, fsWrite, jsonPretty, mathPow, regexFind, regexFindAll, regexMatch, regexReplace, regexSplit, timeFormatIso, timeNowIso,
  timeParseIso, STD_TOOLS,
} from '../../runtime/effects/tools.js';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fs-')));
const data = path.join(base, 'data');
const out = path.join(data, 'out');
const outside = path.join(base, 'outside');
fs.mkdirSync(out, { recursive: true });
fs.mkdirSync(outside);
fs.writeFileSync(path.join(data, 'a.txt'), 'hello');
fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(data, 'link.txt'));
fs.symlinkSync(outside, path.join(out, 'escape'));
const ctx = { capabilities: { files: [{ roots: [data], mode: 'read' as const }, { roots: [out], mode: 'write' as const }] }, cwd: data };

test('reads and writes inside granted roots', async () => {
  assert.equal(await readFileEffect('a.txt', ctx), 'hello');
  await writeFileEffect('out/r.txt', 'written', ctx);
  assert.equal(fs.readFileSync(path.join(out, 'r.txt'), 'utf8'), 'written');
  await writeFileEffect(path.join(out, 'r.txt'), '+more', ctx, { append: true });
  assert.equal(await readFileEffect('out/r.txt', ctx), 'written+more');
  assert.deepEqual(await listDirEffect('.', ctx), ['a.txt', 'link.txt', 'out']);
  assert.equal(await existsEffect('nope.txt', ctx), false);
  await assert.rejects(readFileEffect('nope.txt', ctx), /nope\.txt does not exist/);
});

test('.. escapes, symlinks out of the root and writes to read-only roots are refused', async () => {
  await assert.rejects(readFileEffect('../outside/secret.txt', ctx), (e: Error) => e instanceof EffectDenied && /file read access to .*outside.secret\.txt is not granted/.test(e.message));
  await assert.rejects(readFileEffect('link.txt', ctx), (e: Error) => e instanceof EffectDenied && /resolves to .*outside.secret\.txt, outside the allowed roots/.test(e.message));
  await assert.rejects(writeFileEffect('out/escape/new.txt', 'x', ctx), /outside the allowed roots/);
  assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false);
  await assert.rejects(writeFileEffect('a.txt', 'x', ctx), /file write access to .*a\.txt is not granted/);
  assert.equal(fs.readFileSync(path.join(data, 'a.txt'), 'utf8'), 'hello');
  await assert.rejects(readFileEffect('a.txt', { capabilities: {}, cwd: data }), /not granted \(allowed: none\)/);
});

test('fs tools narrow with a capability map and never widen', async () => {
  const tctx = { vault: new MemoryVault({}), capabilities: ctx.capabilities, cwd: data };
  assert.equal(await fsRead(tctx, null, 'a.txt'), 'hello');
  assert.equal(await fsRead(tctx, { files: { read: ['.'] } }, 'a.txt'), 'hello');
  await assert.rejects(fsRead(tctx, { files: { read: ['out'] } }, 'a.txt'), /not granted \(allowed: read .*out\)/);
  await assert.rejects(fsWrite(tctx, { files: { write: ['.'] } }, 'b.txt', 'x'), /fs_write: cannot widen file write access/);
  await assert.rejects(fsRead(tctx, granted('bearer', 'x'), 'a.txt'), /not an identity/);
});

test('env_get needs the env capability and never reads TURN_SECRET_*', async () => {
  const tctx = { vault: new MemoryVault({}), capabilities: { env: { names: ['APP_*', '*'] } }, cwd: base, env: { APP_MODE: 'dev', TURN_SECRET_GITHUB: 'x' } };
  assert.equal(await envGet(tctx, 'APP_MODE'), 'dev');
  assert.equal(await envGet(tctx, 'APP_OTHER'), null);
  await assert.rejects(envGet(tctx, 'TURN_SECRET_GITHUB'), /holds a secret/);
  await assert.rejects(envGet({ ...tctx, capabilities: {} }, 'APP_MODE'), /APP_MODE is not granted/);
});

test('regex, math, json and time tools', () => {
  assert.equal(regexMatch('^a\\d+$', 'a12'), true);
  assert.equal(regexMatch('^A', 'abc', 'i'), true);
  assert.deepEqual(regexFind('(?<y>\\d{4})-(\\d{2})', 'on 2026-03 ok'), { match: '2026-03', index: 3, groups: ['2026', '03'], named: { y: '2026' } });
  assert.equal(regexFind('x', 'abc'), null);
  assert.deepEqual(regexFindAll('\\d', 'a1b2').map((m) => m.match), ['1', '2']);
  assert.equal(regexReplace('(\\w+)@', 'bob@x ann@y', '<$1>'), '<bob>x <ann>y');
  assert.deepEqual(regexSplit('\\s*,\\s*', 'a , b,c'), ['a', 'b', 'c']);
  assert.throws(() => regexMatch('(', 'x'), /invalid pattern/);
  assert.throws(() => regexMatch('a', 'x', 'g'), /flags must be among/);
  assert.equal(mathPow(2, 10), 1024);
  assert.equal(jsonPretty({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
  assert.equal(timeNowIso({ now: () => 0 }), '1970-01-01T00:00:00.000Z');
  assert.equal(timeFormatIso(86_400_000), '1970-01-02T00:00:00.000Z');
  assert.equal(timeParseIso('1970-01-02T00:00:00Z'), 86_400_000);
  assert.equal(timeParseIso('not a date'), null);
  assert.equal(STD_TOOLS.math_log.effect, false);
  assert.equal((STD_TOOLS.math_log as { run: (x: unknown) => unknown }).run(1), 0);
  assert.equal(STD_TOOLS.http_request.effect, true);
});
