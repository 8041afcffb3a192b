// Issue 38 for OpenAPI: a body and a reply whose property names are not Turn names (`type`,
// `first-name`) go out and come back in the spec's names, nested in objects, lists, maps and a
// oneOf; a property the spec requires but allows null is sent as null; one the literal leaves out is
// not sent; one written null is sent only where the spec allows null. The counterpart is a node:http
// server on 127.0.0.1 that echoes what it received. Then the codec alone, on hostile values.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { RunResult } from '../../runtime/index.js';
import { wireArguments, wireDecode, wireEncode, type NameTable } from '../../runtime/absorb/wire.js';
import { MAX_JSON_DEPTH, StructVal, VMError, type Value } from '../../runtime/values/index.js';
import { runAbsorbed } from './run-absorbed.js';

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'people', version: '1' },
  paths: {
    '/people': {
      post: {
        operationId: 'addPerson',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } } },
        responses: { '200': { description: 'the person', content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Person: {
        type: 'object',
        required: ['first-name', 'type', 'nickname'],
        properties: {
          'first-name': { type: 'string' },
          type: { type: 'string' },
          nickname: { type: ['string', 'null'] },
          middle: { type: ['string', 'null'] },
          age: { type: 'integer' },
          pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
          notes: { type: 'object', additionalProperties: { $ref: '#/components/schemas/Pet' } },
          contact: { oneOf: [{ $ref: '#/components/schemas/Email' }, { $ref: '#/components/schemas/Phone' }] },
        },
      },
      Pet: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, 'pet-name': { type: 'string' } } },
      Email: { type: 'object', required: ['kind', 'e-mail'], properties: { kind: { const: 'email' }, 'e-mail': { type: 'string' } } },
      Phone: { type: 'object', required: ['kind', 'phone-number'], properties: { kind: { const: 'phone' }, 'phone-number': { type: 'string' } } },
    },
  },
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-openapi-wire-'));
fs.writeFileSync(path.join(dir, 'people.json'), JSON.stringify(SPEC));
const received: unknown[] = [];
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.setHeader('content-type', 'application/json');
      res.setHeader('connection', 'close');
      res.end(body); // the person as it came, in the wire's names
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server?.close());

function run(name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  return runAbsorbed(dir, name, `let people = use schema::openapi("people.json");\nlet api = people.client("${base}");\n${body}`);
}

test('a body goes out in the spec names at every depth, and the reply binds under Turn names', { timeout: 60_000 }, async () => {
  received.length = 0;
  const { result, lines } = await run('add.tn', `
let p = api.addPerson(null, Person {
    first_name: "Ada", type_: "admin", nickname: null, middle: null,
    pets: [Pet { type_: "cat", pet_name: "Tom" }],
    notes: {"best": Pet { type_: "dog" }},
    contact: Phone { kind: "phone", phone_number: "555" }
});
call("echo", p.first_name + " " + p.type_ + " " + (p.nickname == null));
let pets = p.pets;
if pets != null { call("echo", pets[0].type_ + " " + pets[0].pet_name); }
let notes = p.notes;
if notes != null { call("echo", notes["best"].type_); }
let c = p.contact;
if c != null and c.kind == "phone" { call("echo", c.phone_number); }
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(received, [
    {
      'first-name': 'Ada',
      type: 'admin',
      // required and nullable: sent as null; `middle` (written null, nullable, not required) too; `age` left out
      nickname: null,
      middle: null,
      pets: [{ type: 'cat', 'pet-name': 'Tom' }],
      notes: { best: { type: 'dog' } },
      contact: { kind: 'phone', 'phone-number': '555' },
    },
  ]);
  assert.deepEqual(lines, ['Ada admin true', 'cat Tom', 'dog', '555']);
});

// ---- the codec alone (runtime/absorb/wire.ts)

const TABLE: NameTable = {
  Node: [
    ['type_', 'type', 0, 1],
    ['next', 'next', 'Node', 0],
    ['kids', 'kids', ['L', 'Node'], 0],
  ],
};
const table = JSON.stringify(TABLE);
const alloc = () => {};

test('deep nesting from outside is a located error, never a stack overflow (reply and request)', () => {
  // a reply nested far past the bound, through a struct's field and a list
  let deep: Value = new Map<string, Value>([['type', 'leaf']]);
  for (let i = 0; i < MAX_JSON_DEPTH * 5; i++) deep = new Map<string, Value>([['type', 'n'], ['kids', [deep]]]);
  assert.throws(() => wireDecode(deep, '"Node"', table, alloc), (e: unknown) => e instanceof VMError && /nested more than 1000 levels/.test(e.message));
  assert.throws(() => wireEncode(deep, '"Node"', table, alloc), VMError);
  // at the bound's edge it converts, iteratively
  let ok: Value = new Map<string, Value>([['type', 'leaf']]);
  for (let i = 0; i < 400; i++) ok = new Map<string, Value>([['type', 'n'], ['next', ok]]);
  let out = wireDecode(ok, '"Node"', table, alloc) as Map<string, Value>;
  let n = 0;
  while (out.has('next')) {
    out = out.get('next') as Map<string, Value>;
    n++;
  }
  assert.equal(n, 400);
  assert.equal(out.get('type_'), 'leaf');
});

test('a reply key that is a Turn name is kept as data and never overwrites the renamed field', () => {
  const reply = new Map<string, Value>([['type_', 'forged'], ['type', 'real']]);
  const out = wireDecode(reply, '"Node"', table, alloc) as Map<string, Value>;
  assert.equal(out.get('type_'), 'real');
});

test('absent is not null: left out, written null and required fields', () => {
  const t = JSON.stringify({ P: [['a', 'a-x', 0, 0], ['b', 'b-x', 0, 2], ['c', 'c-x', 0, 3], ['d', 'd-x', 0, 0]] } satisfies NameTable);
  // a struct literal that left out a, b and wrote d: null
  const s = new StructVal('P', new Map<string, Value>([['a', null], ['b', null], ['c', null], ['d', null]]), new Set(['d']));
  assert.deepEqual([...(wireEncode(s, '"P"', t, alloc) as Map<string, Value>)], [['c-x', null]], 'only the required one is sent; d is written null but not nullable');
  const written = new StructVal('P', new Map<string, Value>([['a', null], ['b', null], ['c', null], ['d', null]]), new Set(['b']));
  assert.deepEqual([...(wireEncode(written, '"P"', t, alloc) as Map<string, Value>)], [['b-x', null], ['c-x', null]]);
  // arguments: left out, given null where null is allowed, given null where it is not
  const args = wireArguments(['x', null, null], [true, true, false], JSON.stringify([['first', 0, 1], ['second', 0, 2], ['third', 0, 2]]), t, alloc) as Map<string, Value>;
  assert.deepEqual([...args], [['first', 'x'], ['second', null]]);
  const notNullable = wireArguments([null], [true], JSON.stringify([['q', 0, 0]]), t, alloc) as Map<string, Value>;
  assert.equal(notNullable.size, 0, 'a query parameter given null is left out');
});

test('a table or shape that is not one is an error, not a crash', () => {
  assert.throws(() => wireDecode(null, '{', table, alloc), (e: unknown) => e instanceof VMError && /shape is not JSON/.test(e.message));
  assert.throws(() => wireDecode(null, '0', '[1]', alloc), (e: unknown) => e instanceof VMError && /not a name table/.test(e.message));
  assert.throws(() => wireDecode(null, '0', 'gzip64:AAAA', alloc), (e: unknown) => e instanceof VMError && /cannot be read/.test(e.message));
  assert.throws(() => wireArguments([1], [true, true], '[["a", 0, 0]]', table, alloc), VMError);
});

test('turn check names both: a spec name used as a field says its Turn name; a call may leave out only optional parameters', async () => {
  const { checkSource } = await import('../../runtime/check/index.js');
  const { formatDiagnostic } = await import('../../runtime/diagnostics.js');
  const file = path.join(dir, 'check.tn');
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
  try {
    const r = await checkSource(
      file,
      `let people = use schema::openapi("people.json");
let api = people.client("http://127.0.0.1:1");
let p = api.addPerson(null, Person { first_name: "A", type: "x", nickname: null });
call("echo", p.type);
api.addPerson(null);
`,
    );
    assert.deepEqual(
      r.diagnostics.map((d) => formatDiagnostic(r.file, d).slice(dir.length + 1)),
      [
        'check.tn:3:29: missing field `type_` in Person',
        'check.tn:3:55: Person has no field `type` (the spec\'s `type` is `type_` in Turn)',
        'check.tn:4:16: Person has no field `type` (the spec\'s `type` is `type_` in Turn)',
        'check.tn:5:1: `addPerson` takes 2 arguments, got 1',
      ],
    );
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
});
