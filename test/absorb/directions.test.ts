// Issue 38: OpenAPI `readOnly` and `writeOnly` in the absorbed types (runtime/absorb/directions.ts).
// A request is built from the struct's request form (`AccountRequest`: no read-only `id`, the
// write-only `password` required as the spec says); a reply binds to the struct itself (`Account`:
// `id` required, `password` optional and dropped when a server sends it). The counterpart is a
// node:http server on 127.0.0.1 that records each request and answers what the test says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runAbsorbed } from './run-absorbed.js';

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'accounts', version: '1' },
  paths: {
    '/accounts': {
      post: {
        operationId: 'createAccount',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } } },
        responses: { '200': { description: 'the account', content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } } } },
      },
    },
    '/teams': {
      post: {
        operationId: 'createTeam',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Team' } } } },
        responses: { '200': { description: 'the team', content: { 'application/json': { schema: { $ref: '#/components/schemas/Team' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Account: {
        type: 'object',
        required: ['id', 'name', 'password'],
        properties: {
          id: { type: 'integer', readOnly: true },
          name: { type: 'string' },
          password: { type: 'string', writeOnly: true },
          created: { type: 'string', readOnly: true },
        },
      },
      // holds an Account at depth: its request form holds AccountRequest
      Team: { type: 'object', required: ['title', 'members'], properties: { title: { type: 'string' }, members: { type: 'array', items: { $ref: '#/components/schemas/Account' } } } },
    },
  },
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-directions-'));
fs.writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify(SPEC));
const received: unknown[] = [];
/** What the server answers to the next request (a function of what it received). */
let answer: (body: Record<string, unknown>) => unknown = (b) => b;
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const got = JSON.parse(body) as Record<string, unknown>;
      received.push(got);
      res.setHeader('content-type', 'application/json');
      res.setHeader('connection', 'close');
      res.end(JSON.stringify(answer(got)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server?.close());

const run = (name: string, body: string) => runAbsorbed(dir, name, `let accounts = use schema::openapi("accounts.json");\nlet api = accounts.client("${base}");\n${body}`);

async function check(source: string): Promise<string[]> {
  const { checkSource } = await import('../../runtime/check/index.js');
  const { formatDiagnostic } = await import('../../runtime/diagnostics.js');
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
  try {
    const r = await checkSource(path.join(dir, 'check.tn'), `let accounts = use schema::openapi("accounts.json");\nlet api = accounts.client("http://127.0.0.1:1");\n${source}`);
    return r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(r.file, d).slice(dir.length + 1));
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
}

test('the checker: a request may not set a read-only field (located), must give a required write-only one; a reply may lack the write-only one', { timeout: 60_000 }, async () => {
  assert.deepEqual(
    await check(`let a = api.createAccount(null, AccountRequest { id: 7, name: "ada", password: "pw" });
api.createAccount(null, AccountRequest { name: "ada" });
api.createAccount(null, Account { id: 1, name: "ada", password: "pw" });
let n: Num = a.id;
`),
    [
      'check.tn:3:50: AccountRequest has no field `id`: it is read-only in the spec (the server sets it), so a request cannot send it',
      'check.tn:4:25: missing field `password` in AccountRequest',
      'check.tn:5:25: type mismatch: parameter `body` of `createAccount` is AccountRequest, got Account',
    ],
  );
  // the use: a request without the read-only fields checks; the reply's `id` is a Num (required in a reply),
  // its `password` a `Str?` (a reply need not carry it); the request form reaches into lists (Team.members)
  assert.deepEqual(
    await check(`let a = api.createAccount(null, AccountRequest { name: "ada", password: "pw" });
let n: Num = a.id;
let p: Str? = a.password;
let t = api.createTeam(null, TeamRequest { title: "t", members: [AccountRequest { name: "b", password: "q" }] });
let m: Num = t.members[0].id;
`),
    [],
  );
});

test('on the wire: read-only fields are never sent (a map that carries one loses it, at any depth); a reply without a required write-only field binds', { timeout: 60_000 }, async () => {
  received.length = 0;
  answer = (b) => ({ ...b, id: 42, created: '2026-01-01', ...(Array.isArray(b.members) ? { members: (b.members as Record<string, unknown>[]).map((m, i) => ({ ...m, id: i })) } : {}) });
  // the server echoes the body without `password`, as a write-only field should be
  answer = ((echo) => (b: Record<string, unknown>) => {
    const out = echo(b) as Record<string, unknown>;
    delete out.password;
    if (Array.isArray(out.members)) for (const m of out.members as Record<string, unknown>[]) delete m.password;
    return out;
  })(answer);
  const { result, lines } = await run('wire.tn', `
let a = api.createAccount(null, AccountRequest { name: "ada", password: "pw" });
call("echo", a.id + " " + a.name + " " + (a.password == null));
// a map is not checked field by field: the read-only fields it carries are left out, nested too
let raw = call("json_parse", "{\\"title\\": \\"t\\", \\"id\\": 5, \\"members\\": [{\\"name\\": \\"b\\", \\"password\\": \\"q\\", \\"id\\": 9, \\"created\\": \\"x\\"}]}");
let t = api.createTeam(null, raw);
call("echo", t.members[0].id);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['42 ada true', '0']);
  assert.deepEqual(received, [
    { name: 'ada', password: 'pw' },
    { title: 't', id: 5, members: [{ name: 'b', password: 'q' }] },
  ]);
});

test('the attack: a reply that smuggles a write-only field does not hand it to the program', { timeout: 60_000 }, async () => {
  received.length = 0;
  // a hostile server sends the password back, in the account and in the team's members
  answer = (b) => ({ ...b, id: 1, password: 'stolen', ...(Array.isArray(b.members) ? { members: (b.members as object[]).map((m) => ({ ...m, id: 2, password: 'stolen' })) } : {}) });
  const { result, lines } = await run('attack.tn', `
let a = api.createAccount(null, AccountRequest { name: "ada", password: "pw" });
call("echo", "account " + (a.password == null));
let t = api.createTeam(null, TeamRequest { title: "t", members: [AccountRequest { name: "b", password: "q" }] });
call("echo", "member " + (t.members[0].password == null));
call("echo", call("json_stringify", t.members[0]));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(lines[0], 'account true');
  assert.equal(lines[1], 'member true');
  assert.doesNotMatch(lines[2], /stolen/);
});
