// Errors and sites map to the user's source (runtime/locate.ts): a frame in a standard module
// maps to the user's calling line, a frame in a module absorbed from `use schema::...` to that
// `use schema` line — in the run API (what the panel shows) and in the CLI's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun, type RunResult } from '../../runtime/index.js';

const ROOT = path.join(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-locate-'));
const env = { ...process.env, TURN_SCHEMA_DIR: path.join(dir, '.schemas') };

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

async function failure(f: string): Promise<Extract<RunResult, { kind: 'failed' }>['error']> {
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = env.TURN_SCHEMA_DIR;
  try {
    const run = await startRun({ file: f, cwd: dir, model: 'mock' });
    const r = await run.start();
    assert.equal(r.kind, 'failed', JSON.stringify(r));
    return r.kind === 'failed' ? r.error : (undefined as never);
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
}

const STD = `let net = use "std/net";

turn {
    let r = net.get(null, "http://127.0.0.1:9/x");
    return r;
}
`;

const SCHEMA = `// an absorbed API
let pets = use schema::openapi("${path.join(ROOT, 'test', 'absorb', 'fixtures', 'petstore.yaml').replace(/\\/g, '/')}");

let all = pets["listPets"](null, "t1", 10, null);
`;

test('an error raised inside a standard module is located at the user line that called it', async () => {
  const e = await failure(file('std.tn', STD));
  assert.equal(path.basename(e.path), 'std.tn');
  assert.equal(e.line, 4);
  assert.equal(e.column, 17);
  assert.match(e.message, /network access to 127\.0\.0\.1:9 is not granted/);
  assert.match(e.message, /\(in std\/net\.tn:\d+\)$/, 'the std frame is named, not shown as the location');
  assert.ok(e.stack.some((f) => f.path.endsWith('net.tn')), 'the stack keeps every frame');
});

test("an error in a call of an absorbed API is located at the user's call, naming the operation and its `use schema` line", async () => {
  const e = await failure(file('schema.tn', SCHEMA));
  assert.equal(path.basename(e.path), 'schema.tn');
  assert.equal(e.line, 4, 'the call, not the use schema line');
  assert.equal(e.column, 11);
  assert.match(e.message, /network access to petstore\.local is not granted/);
  assert.match(e.message, /\(in `listPets` of the API absorbed at schema\.tn:2\)$/);
  assert.ok(e.stack[0].path.includes('.schemas'), 'the VM located the generated module');
});

test('the CLI prints the mapped locations', () => {
  const std = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), 'run', path.join(dir, 'std.tn')], { cwd: dir, env, encoding: 'utf8' });
  assert.equal(std.status, 1, std.stderr);
  assert.match(std.stderr, /std\.tn:4:17: runtime error: .*not granted.*\(in std\/net\.tn:\d+\)/);
  const schema = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), 'run', path.join(dir, 'schema.tn')], { cwd: dir, env, encoding: 'utf8' });
  assert.equal(schema.status, 1, schema.stderr);
  assert.match(schema.stderr, /schema\.tn:4:11: runtime error: .*petstore\.local.*\(in `listPets` of the API absorbed at schema\.tn:2\)/);
  assert.doesNotMatch(schema.stderr.split('\n')[0], /\.schemas[\\/][0-9a-f]+\.tn/, 'the first line does not point at the generated module');
});
