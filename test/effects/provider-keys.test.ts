// A model provider's key is held like a vault secret: no --allow-env grant makes it readable.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { turn } from '../cli/run-cli.js';

const KEY = 'sk-test-0123456789abcdef';

function program(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-keys-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), `let env = use "std/env";\ncall("echo", "read: " + env.get("${name}"));\n`);
  return dir;
}

for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) {
  test(`env.get("${name}") is refused even with --allow-env '*'`, () => {
    const r = turn(['run', 'p.tn', '--allow-env', '*'], { cwd: program(name), env: { [name]: KEY } });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`${name} holds a model provider's key`));
    assert.ok(!(r.stdout + r.stderr).includes(KEY), 'the key was printed');
  });
}

test('the key a model spec names (api_key_env) is refused too, and an ordinary variable is still readable', () => {
  const dir = program('MY_MODEL_KEY');
  const r = turn(['run', 'p.tn', '--allow-env', '*', '--model', 'openai:gpt-4o-mini?api_key_env=MY_MODEL_KEY&base_url=http://127.0.0.1:9'], { cwd: dir, env: { MY_MODEL_KEY: KEY } });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /MY_MODEL_KEY holds a model provider's key/);
  assert.ok(!(r.stdout + r.stderr).includes(KEY));
  const plain = turn(['run', 'p.tn', '--allow-env', '*'], { cwd: dir, env: { MY_MODEL_KEY: 'just-a-value' } });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, 'read: just-a-value\n');
});
