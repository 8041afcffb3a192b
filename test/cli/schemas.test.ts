// `use schema::...` through the real front end: absorbed structs are types the program can name,
// and a malformed spec is a compile error that points into the spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http from 'node:http';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { ROOT, turn } from './run-cli.js';

const fixtures = path.join(ROOT, 'test', 'absorb', 'fixtures');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-schemas-'));
const env = { TURN_SCHEMA_DIR: path.join(dir, '.schemas') };

function program(name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  return file;
}

test('each protocol absorbs into types and callables the program can use', () => {
  const file = program('all.tn', `
    let pets = use schema::openapi("${path.join(fixtures, 'petstore.yaml')}");
    let library = use schema::graphql("${path.join(fixtures, 'library.graphql')}");
    let tools = use schema::mcp("${path.join(fixtures, 'mcp-tools.json')}");
    let person = use schema::jsonschema("${path.join(fixtures, 'person.schema.json')}");
    call("echo", call("type_of", pets["client"]));
    call("echo", call("len", call("keys", pets)) > 1);
    call("echo", call("len", call("keys", library)) > 1);
    call("echo", call("len", call("keys", tools)) > 1);
  `);
  const r = turn(['run', file], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.split('\n').filter(Boolean), ['Closure', 'true', 'true', 'true']);
});

test('an absorbed struct is a type: a wrong field is reported against the layout of the spec', () => {
  const file = program('typed.tn', `
    let pets = use schema::openapi("${path.join(fixtures, 'petstore.yaml')}");
    let p = Pet { nmae: "Rex" };
  `);
  const r = turn(['check', file], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /typed\.tn:3:\d+: Pet has no field `nmae`/);
});

test('malformed and unsupported specs are compile errors with the location in the spec', () => {
  for (const [fixture, protocol] of [['malformed-syntax.yaml', 'openapi'], ['unknown-ref.yaml', 'openapi'], ['swagger2.json', 'openapi'], ['malformed.graphql', 'graphql']]) {
    const file = program(`bad-${fixture}.tn`, `let api = use schema::${protocol}("${path.join(fixtures, fixture)}");\n`);
    const r = turn(['check', file], { env });
    assert.equal(r.code, 2, fixture);
    assert.match(r.stderr, new RegExp(`bad-${fixture.replace('.', '\\.')}\\.tn:1:\\d+: .*${fixture.replace('.', '\\.')}`), fixture);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('a URL spec is fetched once and cached; --refresh-schemas fetches it again', async () => {
  const spec = fs.readFileSync(path.join(fixtures, 'petstore.yaml'), 'utf8');
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    res.end(spec);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/petstore.yaml`;
  const cache = { TURN_SCHEMA_DIR: path.join(dir, '.url-schemas') };
  const file = program('url.tn', `let pets = use schema::openapi("${url}");\nlet p: Pet = null;\n`);
  try {
    const check = (args: string[]) => turnAsync(['check', file, ...args], cache);
    assert.equal((await check([])).code, 0);
    assert.equal((await check([])).code, 0);
    assert.equal(requests, 1, 'fetched once, then read from the cache');
    assert.equal((await check(['--refresh-schemas'])).code, 0);
    assert.equal(requests, 2, 'an explicit refresh fetches again');
  } finally {
    server.close();
  }
});

/** `turn` as an async child, so the test's own HTTP server keeps answering meanwhile. */
function turnAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
