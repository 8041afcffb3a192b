// `use schema::...` through the real front end: absorbed structs are types the program can name,
// and a malformed spec is a compile error that points into the spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
