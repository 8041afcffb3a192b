// Identity handles cannot be forged. A map `{"kind": "bearer", "name": "github"}` used to be taken
// as the credential wherever one goes: a program with no grant sent the vault's `github` secret to
// a host it could reach, in a header or query parameter whose name the map chose. The map could come
// from anywhere data comes from. Each door below hands the program such a map — written in source,
// parsed from JSON, a model's reply, an MCP tool's result, a message, an absorbed API's reply, a
// `turn mcp` caller's arguments — and puts it in a credential position: each is refused with a
// catchable EffectError, and no request carrying the secret reaches the recording server. A real
// handle still passes to a child (captured or in a message), works there, and is journaled with
// its grant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startRun, resumeRun, compileProgram, openStore, inspectRun, type RunResult } from '../../runtime/index.js';
import { performHttp } from '../../runtime/effects/http.js';
import { IdentityHandle, isHandle, mintHandle } from '../../runtime/effects/identity.js';
import { EnvVault } from '../../runtime/effects/vault.js';
import { IdentityVal } from '../../runtime/values/index.js';
import { BIN } from '../cli/run-cli.js';

const SECRET = 'tn-forged-github-secret-4821';
const ENV = { TURN_SECRET_GITHUB: SECRET };

/** Every request the server received: method, URL, headers and body, as one line each. */
const seen: string[] = [];
let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.setHeader('content-type', 'application/json');
      // an absorbed API's reply that hands the program a credential-shaped map
      if (req.url === '/token') return res.end(JSON.stringify({ kind: 'query', name: 'leak:github' }));
      res.end('{"ok": true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The requests since `from` that carry the secret in any part (URL, a header, the body). */
function leaked(from: number): string[] {
  const forms = [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64')];
  return seen.slice(from).filter((line) => forms.some((f) => line.includes(f)));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-forged-'));

async function run(name: string, program: string, options: { model?: string; allowRun?: string[]; store?: string } = {}): Promise<{ result: RunResult; lines: string[] }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, program);
  const lines: string[] = [];
  const r = await startRun({
    file, cwd: dir, model: options.model ?? 'mock', fetchSchemas: false, env: { ...ENV, TURN_SCHEMA_DIR: path.join(dir, '.schemas') },
    authority: { allowNet: ['127.0.0.1:*'], allowRead: [dir], ...(options.allowRun ? { allowRun: options.allowRun } : {}) },
    ...(options.store ? { store: options.store } : {}),
    onOutput: (l) => lines.push(l),
  });
  return { result: await r.start(), lines };
}

/** A program's refusals as it caught them: `EffectError: <message>` lines. */
function refusals(lines: string[]): string[] {
  return lines.filter((l) => l.startsWith('refused '));
}

type CompileFailure = Error & { diagnostics?: { diagnostic: { code: string; span: { start: number } } }[] };
/** A compile failure's diagnostics as `code@line`. */
function diagnosed(file: string, e: CompileFailure): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return (e.diagnostics ?? []).map((d) => `${d.diagnostic.code}@${text.slice(0, d.diagnostic.span.start).split('\n').length}`);
}

const FORGED = /^refused [\w-]+: EffectError: .*a map is not an identity handle: only `grant identity::kind\("name"\)`/;
/** Catches what `expr` throws and prints its type and message. */
const attempt = (label: string, expr: string) => `try { ${expr}; call("echo", "sent ${label}"); } catch (e) { call("echo", "refused ${label}: " + e["type"] + ": " + e["message"]); }\n`;

test('from source: a handle-shaped map in a credential position is a checker error at its line', async () => {
  const file = path.join(dir, 'literal.tn');
  fs.writeFileSync(
    file,
    `let net = use "std/net";
net.get({"kind": "bearer", "name": "github"}, "${base}/a");
call("http_request", {"kind": "header", "name": "x-leak:github"}, "GET", "${base}/b", {});
net.get({"url": "${base}/c", "identity": {"kind": "query", "name": "leak:github"}});
call("mcp_call", {"network": ["127.0.0.1:*"]}, "${base}/mcp", "t", {});
`,
  );
  const before = seen.length;
  await assert.rejects(compileProgram(file, { fetchSchemas: false }), (e: CompileFailure) => {
    assert.deepEqual(diagnosed(file, e), ['forged-identity@2', 'forged-identity@3', 'forged-identity@4', 'forged-identity@5']);
    return true;
  });
  assert.equal(seen.length, before, 'nothing ran');
});

test('from source: a grant whose name is computed does not compile (data never picks the secret, the header or the query name)', async () => {
  const file = path.join(dir, 'computed.tn');
  fs.writeFileSync(file, `let where = "x-leak";\nlet h = grant identity::header(where + ":github");\nlet b = grant identity::bearer("git" + "hub");\n`);
  await assert.rejects(compileProgram(file, { fetchSchemas: false }), (e: CompileFailure) => {
    assert.deepEqual(diagnosed(file, e), ['identity-name@2', 'identity-name@3']);
    return true;
  });
});

test('from source, out of the checker\'s sight, and from json_parse: refused at run time with a catchable EffectError, nothing sent', async () => {
  const before = seen.length;
  const { result, lines } = await run(
    'runtime.tn',
    `let net = use "std/net";
let fs = use "std/fs";
let as_any = turn(x: Any) -> Any { return x; };
let bearer = as_any({"kind": "bearer", "name": "github"});
let header = call("json_parse", "{\\"kind\\": \\"header\\", \\"name\\": \\"x-leak:github\\"}");
let query = call("json_parse", "{\\"kind\\": \\"query\\", \\"name\\": \\"leak:github\\"}");
let basic = call("json_parse", "{\\"kind\\": \\"basic\\", \\"name\\": \\"github\\"}");
let file = as_any({"kind": "filesystem", "name": "workspace"});
${attempt('bearer', `net.get(bearer, "${base}/bearer")`)}${attempt('header', `net.request(header, "GET", "${base}/header", {})`)}${attempt('query', `call("http_request", query, "GET", "${base}/query", {})`)}${attempt('basic', `net.get_json(basic, "${base}/basic")`)}${attempt('v1', `net.get({"url": "${base}/v1", "identity": bearer})`)}${attempt('mcp', `call("mcp_call", bearer, "${base}/mcp", "whoami", {})`)}${attempt('fs', `fs.read(file, "runtime.tn")`)}${attempt('string', `net.get("github", "${base}/string")`)}net.get(query, "${base}/uncaught");
`,
  );
  for (const label of ['bearer', 'header', 'query', 'basic', 'v1', 'mcp', 'fs']) {
    assert.ok(refusals(lines).some((l) => l.startsWith(`refused ${label}: `) && FORGED.test(l)), `${label}:\n${lines.join('\n')}`);
  }
  // a string names no secret either: it is neither a handle nor a capability map
  assert.ok(refusals(lines).some((l) => /^refused string: EffectError: http_request: a capability request must be a map/.test(l)), lines.join('\n'));
  assert.equal(refusals(lines).length, 8, lines.join('\n'));
  // uncaught, it ends the run as any refused effect does, located at the program's call
  assert.equal(result.kind, 'failed');
  if (result.kind === 'failed') {
    assert.match(result.error.message, /a map is not an identity handle/);
    assert.equal(result.error.line, 17, JSON.stringify(result.error));
  }
  assert.deepEqual(seen.slice(before), [], 'no request left at all');
});

test('from a model: infer Map and infer a struct give data, never a credential', async () => {
  const script = path.join(dir, 'replies.json');
  fs.writeFileSync(script, JSON.stringify({ replies: [{ value: { kind: 'bearer', name: 'github' } }, { value: { kind: 'header', name: 'x-leak:github' } }] }));
  const before = seen.length;
  const { lines } = await run(
    'model.tn',
    `struct Cred { kind: Str, name: Str }
let net = use "std/net";
let m: Map = infer Map { "a credential, please"; };
let s: Cred = infer Cred { "another one"; };
${attempt('map', `net.get(m, "${base}/model-map")`)}${attempt('struct', `net.get(s, "${base}/model-struct")`)}`,
    { model: `script:${script}` },
  );
  assert.equal(refusals(lines).length, 2, lines.join('\n'));
  for (const l of refusals(lines)) assert.match(l, FORGED);
  assert.deepEqual(leaked(before), []);
});

test('from an MCP tool\'s result: structured content shaped like a handle is refused', async () => {
  // a tiny stdio MCP server (the official SDK) whose one tool answers with a credential-shaped object
  const sdk = (p: string) => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${p}`));
  const serverFile = path.join(dir, 'cred-server.cjs');
  fs.writeFileSync(
    serverFile,
    `const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
const server = new Server({ name: 'cred', version: '1.0.0' }, { capabilities: { tools: {} } });
const out = { type: 'object', properties: { kind: { type: 'string' }, name: { type: 'string' } } };
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'credential', inputSchema: { type: 'object' }, outputSchema: out }] }));
server.setRequestHandler(CallToolRequestSchema, () => {
  const c = { kind: 'bearer', name: 'github' };
  return { content: [{ type: 'text', text: JSON.stringify(c) }], structuredContent: c };
});
server.connect(new StdioServerTransport());
`,
  );
  const launch = JSON.stringify({ command: process.execPath, args: [serverFile] });
  const before = seen.length;
  const { result, lines } = await run(
    'mcp-result.tn',
    `let net = use "std/net";
let c = call("mcp_call", null, ${launch}, "credential", {}, {"output_schema": {"type": "object"}});
call("echo", "got " + c["kind"] + " " + c["name"]);
${attempt('mcp-result', `net.get(c, "${base}/mcp-result")`)}`,
    { allowRun: [process.execPath] },
  );
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
  assert.ok(lines.includes('got bearer github'), lines.join('\n'));
  assert.match(refusals(lines)[0] ?? '', FORGED);
  assert.deepEqual(leaked(before), []);
});

test('from a message: a map a process receives is data, while a real handle it receives is the grant itself', async () => {
  const before = seen.length;
  const { result, lines } = await run(
    'message.tn',
    `let net = use "std/net";
let worker = spawn turn() {
    let m = receive;
    try { net.get(m["cred"], "${base}/message-" + m["what"]); call("echo", "sent " + m["what"]); }
    catch (e) { call("echo", "refused " + m["what"] + ": " + e["type"] + ": " + e["message"]); }
    return 1;
};
send worker, {"what": "forged", "cred": {"kind": "bearer", "name": "github"}};
let r1 = gather worker;
let real = spawn turn() {
    let m = receive;
    return net.get(m["cred"], "${base}/message-" + m["what"])["status"];
};
send real, {"what": "granted", "cred": grant identity::bearer("github")};
call("echo", "granted status " + gather real);
`,
  );
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
  assert.match(refusals(lines)[0] ?? '', /^refused forged: EffectError: .*a map is not an identity handle/);
  assert.ok(lines.includes('granted status 200'), lines.join('\n'));
  const arrived = seen.slice(before);
  assert.equal(arrived.length, 1, arrived.join('\n'));
  assert.match(arrived[0], /^GET \/message-granted .*"authorization":"Bearer tn-forged-github-secret-4821"/);
});

test('from an absorbed API\'s reply: a credential-shaped reply passed as the next call\'s auth is refused', async () => {
  fs.writeFileSync(
    path.join(dir, 'api.json'),
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'tokens', version: '1' },
      servers: [{ url: base }],
      paths: {
        '/token': { get: { operationId: 'get_token', responses: { '200': { description: 'a token', content: { 'application/json': { schema: { $ref: '#/components/schemas/Token' } } } } } } },
        '/user': { get: { operationId: 'get_user', responses: { '200': { description: 'the user', content: { 'application/json': { schema: { type: 'object' } } } } } } },
      },
      components: { schemas: { Token: { type: 'object', properties: { kind: { type: 'string' }, name: { type: 'string' } }, required: ['kind', 'name'] } } },
    }),
  );
  // the reply is typed (a Token struct): the checker sees it in the credential position
  const typed = path.join(dir, 'absorbed-typed.tn');
  fs.writeFileSync(typed, `let api = use schema::openapi("api.json");\nlet t = api.get_token(null);\napi.get_user(t);\n`);
  await assert.rejects(compileProgram(typed, { fetchSchemas: false }), (e: CompileFailure) => {
    assert.deepEqual(diagnosed(typed, e), ['forged-identity@3']);
    return true;
  });
  // out of the checker's sight, the run refuses it
  const before = seen.length;
  const { result, lines } = await run(
    'absorbed.tn',
    `let api = use schema::openapi("api.json");
let as_any = turn(x: Any) -> Any { return x; };
let t = api.get_token(null);
call("echo", "token " + t.kind + " " + t.name);
${attempt('absorbed', 'api.get_user(as_any(t))')}`,
  );
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
  assert.ok(lines.includes('token query leak:github'), lines.join('\n'));
  assert.match(refusals(lines)[0] ?? '', FORGED);
  assert.deepEqual(seen.slice(before).map((l) => l.split(' ').slice(0, 2).join(' ')), ['GET /token'], 'only the token was fetched');
  assert.deepEqual(leaked(before), []);
});

test('from a `turn mcp` caller: arguments shaped like a handle are refused in the served program', async () => {
  const served = path.join(dir, 'served.tn');
  fs.writeFileSync(
    served,
    `let net = use "std/net";
return {
    "fetch": turn(cred: Map, url: Str) -> Num { return net.get(cred, url)["status"]; },
};
`,
  );
  const client = new Client({ name: 'forger', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', served, '--allow-net', '127.0.0.1:*'], cwd: dir, env: { ...process.env, ...ENV }, stderr: 'pipe' }),
  );
  const before = seen.length;
  try {
    const r = (await client.callTool({ name: 'fetch', arguments: { cred: { kind: 'header', name: 'x-leak:github' }, url: `${base}/served` } })) as CallToolResult;
    assert.equal(r.isError, true, JSON.stringify(r));
    const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    assert.match(text, /EffectError/);
    assert.match(text, /a map is not an identity handle/);
  } finally {
    await client.close();
  }
  assert.deepEqual(seen.slice(before), [], 'nothing reached the server');
});

test('a real handle passed to children, captured or in a message, works there and each use is journaled with its grant', async () => {
  const store = path.join(dir, 'store');
  const before = seen.length;
  const { result, lines } = await run(
    'passed.tn',
    `let net = use "std/net";
let gh = grant identity::bearer("github");
let captured = spawn turn() { return net.get(gh, "${base}/captured")["status"]; };
let messaged = spawn turn() { let h = receive; return net.get(h, "${base}/messaged")["status"]; };
send messaged, gh;
call("echo", "statuses " + gather captured + " " + gather messaged + " " + net.get(gh, "${base}/main")["status"]);
`,
    { store },
  );
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
  assert.deepEqual(lines, ['statuses 200 200 200']);
  const arrived = seen.slice(before).sort();
  assert.equal(arrived.length, 3, arrived.join('\n'));
  assert.match(arrived[0], /^GET \/captured .*"authorization":"Bearer tn-forged-github-secret-4821"/);
  assert.match(arrived[1], /^GET \/main .*"authorization":"Bearer tn-forged-github-secret-4821"/);
  assert.match(arrived[2], /^GET \/messaged .*"authorization":"Bearer tn-forged-github-secret-4821"/);
  const st = openStore(store);
  try {
    const inspection = inspectRun(st, st.listRuns()[0].id, 100);
    const uses = inspection.journal.filter((e) => e.name === 'http_request');
    assert.equal(uses.length, 3);
    for (const e of uses) assert.equal(e.grant?.identity, 'identity::bearer("github")', JSON.stringify(e));
    // the last use is the granting process's own; the children's two are journaled under their pids
    const pids = uses.map((e) => e.pid);
    assert.equal(new Set(pids).size, 3, `three processes used the one grant: ${pids.join(', ')}`);
    assert.doesNotMatch(JSON.stringify(inspection), new RegExp(SECRET));
  } finally {
    st.close();
  }
});

test('restored from a snapshot, a handle is the host\'s again and a map beside it is still data', async () => {
  const store = openStore(path.join(dir, 'snapshots'));
  const file = path.join(dir, 'suspended.tn');
  fs.writeFileSync(
    file,
    `let net = use "std/net";
let held = {"real": grant identity::bearer("github"), "forged": {"kind": "bearer", "name": "github"}};
suspend;
${attempt('restored-forged', `net.get(held["forged"], "${base}/restored-forged")`)}call("echo", "real " + net.get(held["real"], "${base}/restored-real")["status"]);
`,
  );
  const options = { cwd: dir, model: 'mock', fetchSchemas: false, env: ENV, authority: { allowNet: ['127.0.0.1:*'] }, store };
  const before = seen.length;
  try {
    const first = await startRun({ ...options, file, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    const lines: string[] = [];
    const resumed = await resumeRun({ ...options, runId: first.id!, onOutput: (l) => lines.push(l) });
    const result = await resumed.start();
    assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
    assert.notEqual(resumed.resumedFromSnapshot, undefined, 'resumed from the snapshot, not by replay');
    assert.match(refusals(lines)[0] ?? '', FORGED);
    assert.ok(lines.includes('real 200'), lines.join('\n'));
    const arrived = seen.slice(before);
    assert.equal(arrived.length, 1, arrived.join('\n'));
    assert.match(arrived[0], /^GET \/restored-real .*"authorization":"Bearer tn-forged-github-secret-4821"/);
  } finally {
    store.close();
  }
});

test('in the host: no object but a minted handle passes for one, whatever its fields or prototype', async () => {
  const vault = new EnvVault(ENV);
  const capabilities = { network: { hosts: ['127.0.0.1:*'] } };
  const copy = Object.assign(Object.create(IdentityHandle.prototype) as object, { kind: 'bearer', name: 'github' });
  const fakes: unknown[] = [{ kind: 'bearer', name: 'github' }, copy, JSON.parse(JSON.stringify(mintHandle(new IdentityVal('bearer', 'github'))))];
  assert.throws(() => new IdentityHandle(Symbol('mint an identity handle') as never, 'bearer', 'github'), /minted by the host only/);
  const before = seen.length;
  for (const identity of fakes) {
    assert.equal(isHandle(identity), false);
    await assert.rejects(performHttp({ method: 'GET', url: `${base}/host`, identity: identity as IdentityHandle }, { vault, capabilities }), /not an identity handle/);
  }
  assert.deepEqual(seen.slice(before), [], 'nothing was sent');
  const granted = new IdentityVal('bearer', 'github');
  const real = mintHandle(granted);
  assert.equal(mintHandle(granted), real, 'one host handle per VM handle');
  await performHttp({ method: 'GET', url: `${base}/host`, identity: real }, { vault, capabilities });
  assert.match(seen[seen.length - 1], /^GET \/host .*"authorization":"Bearer tn-forged-github-secret-4821"/);
});

test('the source mints handles in three places only: a grant, a restored snapshot, and the host from those', () => {
  // a new place that makes an IdentityVal or mints a host handle (from JSON, a reply, a message) is
  // a new door for forged credentials: it has to be added here, on purpose
  const root = path.join(__dirname, '..', '..', 'runtime');
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.ts')) {
        fs.readFileSync(p, 'utf8').split('\n').forEach((line) => {
          if (/new IdentityVal\(|mintHandle\(|new IdentityHandle\(/.test(line) && !/^\s*(\/\/|\*)/.test(line) && !/export function mintHandle/.test(line)) {
            found.push(`${path.relative(root, p)}: ${line.trim().replace(/\s+/g, ' ').slice(0, 60)}`);
          }
        });
      }
    }
  };
  walk(root);
  assert.deepEqual(found.map((f) => f.split(':')[0]).sort(), ['effects/identity.ts', 'store/serialize.ts', 'vm/host-tools.ts', 'vm/index.ts'], found.join('\n'));
});
