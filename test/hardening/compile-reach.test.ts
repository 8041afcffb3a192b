// What a program can reach while it is compiled, before any capability applies (docs/authority.md,
// "Compile-time reach"): `use` loads only Turn sources, `--offline` fetches no URL spec, and the
// knowledge store needs a grant.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { JS_STACK, turn } from '../cli/run-cli.js';

function workdir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-reach-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

test('`use` of a file that is not a Turn source is refused without showing a byte of it', () => {
  const dir = workdir({ 'secrets.env': 'API_KEY=a9c55b7-very-secret\n', 'p.tn': 'let m = use "secrets.env";\ncall("echo", "ran");\n' });
  const r = turn(['check', 'p.tn'], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /p\.tn:1:\d+: `secrets\.env` is not a Turn module/);
  assert.doesNotMatch(r.stderr + r.stdout, /a9c55b7|very-secret/);
  assert.doesNotMatch(r.stderr, JS_STACK);
});

test('a spec path into this process\'s /proc is refused at compile time, quoting nothing of it', () => {
  const dir = workdir({ 'p.tn': 'let s = use schema::jsonschema("/proc/self/environ");\ncall("echo", "ran");\n' });
  const r = turn(['check', 'p.tn'], { cwd: dir, env: { TURN_SECRET_PROBE: 'probe-value-0123456789' } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /p\.tn:1:\d+: .*not a spec: .*own \/proc entry/);
  assert.doesNotMatch(r.stderr + r.stdout, /probe-value/);
});

test('--offline fetches no spec at compile time: an uncached URL is a located error, never a request', () => {
  const dir = workdir({ 'p.tn': 'let api = use schema::openapi("http://127.0.0.1:9/never.yaml");\ncall("echo", "ran");\n' });
  const r = turn(['check', 'p.tn', '--offline'], { cwd: dir, env: { TURN_STORE_DIR: path.join(dir, '.turn') } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /p\.tn:1:\d+: .*not cached/);
  const both = turn(['run', 'p.tn', '--offline', '--refresh-schemas'], { cwd: dir });
  assert.equal(both.code, 64);
  assert.match(both.stderr, /--offline and --refresh-schemas cannot be used together/);
});

test('std/knowledge opens its store only with a grant: --allow-write on its folder, or --allow-knowledge', () => {
  const program = 'let kb = use "std/knowledge";\nlet id = kb.material("notes", "water boils at 100 C", null);\ncall("echo", "stored");\n';
  const dir = workdir({ 'p.tn': program });
  const env = { TURN_STORE_DIR: path.join(dir, '.turn') };
  const refused = turn(['run', 'p.tn'], { cwd: dir, env });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /runtime error: .*needs write access to its folder \(--allow-write .*, or --allow-knowledge\)/);
  assert.equal(fs.existsSync(path.join(dir, '.turn', 'knowledge.db')), false, 'nothing was created without a grant');
  const granted = turn(['run', 'p.tn', '--allow-knowledge'], { cwd: dir, env });
  assert.equal(granted.code, 0, granted.stderr);
  assert.equal(granted.stdout, 'stored\n');
});
