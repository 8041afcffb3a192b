// The replies of absorbed OpenAPI operations are validated against the operation's declared result
// before the program sees them (runtime/absorb/reply.ts): a reply that does not conform is a
// located, catchable ReplyError naming the operation, the JSON pointer and what was expected, and
// nothing binds; `unvalidated()` gives the same operations without the check. The counterpart is a
// node:http server on 127.0.0.1 answering as the Swagger Petstore does, and then wrongly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startRun, type RunResult } from '../../runtime/index.js';

const FIX = path.join(__dirname, 'fixtures');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-replies-'));
fs.copyFileSync(path.join(FIX, 'petstore3.yaml'), path.join(dir, 'petstore3.yaml'));
let server: http.Server;
let base = '';
/** the bodies the server received, by path */
const received: { method: string; url: string; body: string }[] = [];

const PETS: Record<string, unknown> = {
  '/pet/1': { id: 1, name: 'doggie', photoUrls: ['a.png'], status: 'available', extra: 'a field the spec does not list' },
  '/pet/2': { ok: true },
  '/pet/3': { id: 3, name: '', photoUrls: [] },
  '/pet/findByStatus?status=sold': [{ id: 1, name: 'a', photoUrls: [] }, { id: 'two', name: 'b', photoUrls: [] }],
  '/pet/findByStatus': [{ id: 1, name: 'a', photoUrls: [] }],
  '/store/inventory': { available: 3, sold: 'many' },
  '/adoptions/a1': { decision: 'approved', fee: 40 },
  '/adoptions/r1': { decision: 'rejected', reason: 'no garden' },
  '/adoptions/x1': { decision: 'maybe' },
};

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body });
      const url = (req.url ?? '').replace(/^\/api\/v3/, '');
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && url === '/pet') return res.end(JSON.stringify({ id: 7, ...JSON.parse(body) }));
      if (Object.hasOwn(PETS, url)) return res.end(JSON.stringify(PETS[url]));
      res.statusCode = 404;
      res.end('{"code": 404}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
});
after(() => server.close());

async function run(name: string, body: string): Promise<{ result: RunResult; lines: string[]; file: string }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `let store = use schema::openapi("petstore3.yaml");\nlet pets = store.client("${base}");\n${body}`);
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
  const lines: string[] = [];
  try {
    const r = await startRun({ file, cwd: dir, model: 'mock', authority: { allowNet: ['127.0.0.1:*'] }, fetchSchemas: false, onOutput: (l) => lines.push(l) });
    return { result: await r.start(), lines, file };
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
}

test('a conforming reply binds (extra properties the spec does not list are allowed)', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('ok.tn', `
let pet = pets.getPetById(null, 1);
call("echo", pet.name + " " + call("len", pet.photoUrls));
let inventory = store.client("${base}").findPetsByStatus(null, null);
call("echo", call("len", inventory));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['doggie 1', '1']);
});

test('a reply that violates the spec is a located error naming the operation, the pointer and what was expected; nothing binds', { timeout: 60_000 }, async () => {
  const { result, lines, file } = await run('bad.tn', `
let pet = pets.getPetById(null, 2);
call("echo", "bound: " + pet);
`);
  assert.equal(result.kind, 'failed', JSON.stringify(result));
  assert.deepEqual(lines, [], 'nothing after the call ran');
  if (result.kind !== 'failed') return;
  // (the VM prints an uncaught error map whole; its message is in it)
  assert.match(result.error.message, /"type": "ReplyError", "operation": "getPetById", "pointer": "\/", "expected": "must have the property \\"name\\""/);
  assert.match(result.error.message, /"message": "getPetById: the reply does not conform to Pet: at \/ it must have the property \\"name\\" \(and 1 more\)"/);
  assert.equal(result.error.path, file, 'located in the user\'s file');
  assert.equal(result.error.line, 4, 'at the call (issue 40), not the `use schema` line');
  assert.match(result.error.message, /\(in `getPetById` of the API absorbed at bad\.tn:1\)$/, 'naming the operation and its `use schema` line');
});

test('ReplyError is catchable and carries operation, pointer, expected and every issue; checks and list items are enforced', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('catch.tn', `
let show = turn(f: Any) {
    try {
        let v = f();
        call("echo", "bound");
    } catch (e) {
        call("echo", e["type"] + " " + e["operation"] + " " + e["pointer"] + " " + e["expected"]);
    }
};
show(turn() { return pets.getPetById(null, 3); });
show(turn() { return pets.findPetsByStatus(null, "sold"); });
show(turn() { return pets.getInventory(null); });
show(turn() { return pets.getAdoption(null, "x1"); });
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(lines.length, 4, lines.join('\n'));
  assert.equal(lines[0], 'ReplyError getPetById /name must have at least 1 character', 'the check of the spec (minLength) is enforced');
  // (the validator words an optional field's failure inside a struct reached through a shared $ref
  // as "must be one of: " — runtime/infer/validate.ts reads Ajv's schemaPath against the root)
  assert.match(lines[1], /^ReplyError findPetsByStatus \/1\/id must be /, 'the pointer reaches into the list');
  assert.equal(lines[2], 'ReplyError getInventory /sold must be a number', 'a map value is checked');
  assert.equal(lines[3], 'ReplyError getAdoption / must be one of: Approved (decision: "approved"), Rejected (decision: "rejected"); its "decision" is "maybe", which names none of them', 'a union member must match; its discriminator names the members');
});

test('a discriminated union reply binds as the member it is, and narrows by its literal discriminator', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('union.tn', `
let say = turn(d: Approved | Rejected) -> Str {
    if d.decision == "approved" { return "approved for " + d.fee; }
    if d.decision == "rejected" { return "rejected: " + d.reason; }
    return "neither";
};
call("echo", say(pets.getAdoption(null, "a1")));
call("echo", say(pets.getAdoption(null, "r1")));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['approved for 40', 'rejected: no garden']);
});

test('unvalidated() opts out: the same operation binds a reply that does not conform, typed Any', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('raw.tn', `
let raw = pets.unvalidated().getPetById(null, 2);
call("echo", raw["ok"]);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['true']);
});

test('Pet { name: "x", photoUrls: [] } is accepted: the non-required id, category, tags and status may be left out', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('add.tn', `
let added = pets.addPet(null, Pet { name: "x", photoUrls: [] });
call("echo", added.id);
call("echo", added.name);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['7', 'x']);
  const post = received.find((r) => r.method === 'POST');
  assert.ok(post);
  assert.deepEqual(JSON.parse(post.body), { name: 'x', photoUrls: [] }, 'the fields left out are not sent (a non-nullable id is never sent as null)');
});
