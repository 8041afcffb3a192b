// Issue 38: OpenAPI's `discriminator` picks a `oneOf` member (runtime/absorb/schema.ts, wire.ts).
// Explicit mappings (a bare schema name, a `#/...` reference, two values naming one member) and
// the implicit one (the component's name) type each member's property as the values naming it;
// a reply binds as the member its discriminator names even when it would complete another; an
// encoded member carries its discriminator value even when the program leaves it out; a reply whose
// discriminator names no member is an error naming the value and the members. The counterpart is a
// node:http server on 127.0.0.1 that records each request and answers what the test says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { absorbSchema } from '../../runtime/absorb/index.js';
import { runAbsorbed } from './run-absorbed.js';

const pet = { oneOf: [{ $ref: '#/components/schemas/Dog' }, { $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Lizard' }], discriminator: { propertyName: 'petType', mapping: { dog: '#/components/schemas/Dog', cat: 'Cat', kitty: 'Cat' } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      post: {
        operationId: 'addPet',
        requestBody: { required: true, content: { 'application/json': { schema: pet } } },
        responses: { '200': { description: 'the pet', content: { 'application/json': { schema: pet } } } },
      },
    },
  },
  components: {
    schemas: {
      // the discriminator is not required: a value may leave it out, and encoding fills it in
      Dog: { type: 'object', properties: { petType: { type: 'string' }, 'dog-name': { type: 'string' } } },
      Cat: { type: 'object', properties: { petType: { type: 'string' }, 'cat-name': { type: 'string' } } },
      Lizard: { type: 'object', required: ['petType'], properties: { petType: { type: 'string' }, scales: { type: 'integer' } } },
    },
  },
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-discriminator-'));
fs.writeFileSync(path.join(dir, 'pets.json'), JSON.stringify(SPEC));
const received: unknown[] = [];
let answer: unknown = {};
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
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server?.close());

const run = (name: string, body: string) => runAbsorbed(dir, name, `let pets = use schema::openapi("pets.json");\nlet api = pets.client("${base}");\n${body}`);

test('each member\'s discriminator is typed by the mapping: explicit (a name, a reference, two values) and implicit', async () => {
  const r = await absorbSchema('openapi', path.join(dir, 'pets.json'), dir, { cacheDir: path.join(dir, '.cache') });
  const field = (s: string) => r.structs.find((x) => x.name === s)!.fields.find((f) => f.wireName === 'petType')!;
  assert.deepEqual(field('Dog').type, { kind: 'Literal', value: 'dog' });
  assert.deepEqual(field('Cat').type, { kind: 'Enum', values: ['cat', 'kitty'] });
  assert.deepEqual(field('Lizard').type, { kind: 'Literal', value: 'Lizard' });
  assert.ok(field('Cat').discriminator && field('Lizard').discriminator);
  assert.equal(field('Dog').optional, true);
});

test('a reply binds as the member its discriminator names, though it completes the first member too; a member sent carries its value', { timeout: 60_000 }, async () => {
  received.length = 0;
  // `kitty` names Cat; the value also completes Dog (which requires nothing), the first member
  answer = { petType: 'kitty', 'cat-name': 'Tom' };
  const { result, lines } = await run('pick.tn', `
let p = api.addPet(null, Cat { cat_name: "Tom" });
call("echo", call("json_stringify", p));
let l = api.addPet(null, Lizard { petType: "Lizard", scales: 3 });
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(JSON.parse(lines[0]), { petType: 'kitty', cat_name: 'Tom' });
  // Cat left its discriminator out: it went out as "cat", the first value naming Cat
  assert.deepEqual(received, [{ petType: 'cat', 'cat-name': 'Tom' }, { petType: 'Lizard', scales: 3 }]);
});

test('the attack: a reply whose discriminator names no member is an error naming the value and the members, located at the call', { timeout: 60_000 }, async () => {
  answer = { petType: 'parrot', 'dog-name': 'Rex' };
  const { result, lines } = await run('unknown.tn', `
try {
    let p = api.addPet(null, Dog { dog_name: "Rex" });
    call("echo", "bound");
} catch (e) {
    call("echo", e["type"] + ": " + e["message"]);
}
let q = api.addPet(null, Dog { dog_name: "Rex" });
`);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^ReplyError: addPet: the reply does not conform to Dog \| Cat \| Lizard: at \/ it must be one of: Dog.*Cat.*Lizard.*; its "petType" is "parrot", which names none of them/);
  // uncaught, it is located at the program's call (line 10: the spec's two lines, then the program)
  assert.equal(result.kind, 'failed', JSON.stringify(result));
  const error = (result as { error: { path: string; line: number; message: string } }).error;
  assert.deepEqual([path.basename(error.path), error.line], ['unknown.tn', 10]);
  assert.match(error.message, /parrot\\?", which names none of them/);
});
