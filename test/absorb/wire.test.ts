// An absorbed OpenAPI client on the wire, end to end (Turn program → generated module → host HTTP
// effect → a local server that records what it received): Accept from the declared replies,
// cookies sent, parameter styles, a JSON string body as JSON, form bodies, a reply decoded by its
// Content-Type, an undeclared reply type and a CR/LF header value refused with located errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startRun, type RunResult } from '../../runtime/index.js';

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'wire', version: '1' },
  paths: {
    '/items/{ids}': {
      get: {
        operationId: 'getItems',
        parameters: [
          { name: 'ids', in: 'path', required: true, style: 'matrix', explode: true, schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'filter', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', properties: { color: { type: 'string' } } } },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string' } },
          { name: 'X-Tags', in: 'header', schema: { type: 'array', items: { type: 'string' } } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/xml': { schema: { type: 'object' } }, 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/notes': {
      post: {
        operationId: 'addNote',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'string' } } } },
        responses: { '200': { description: 'ok', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
      put: {
        operationId: 'putForm',
        requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } } } } },
        responses: { '204': { description: 'done' } },
      },
    },
  },
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-wire-'));
fs.writeFileSync(path.join(dir, 'wire.json'), JSON.stringify(SPEC));
process.env.TURN_SCHEMA_DIR ??= path.join(dir, '.schemas');
const received: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/items/;ids=9')) {
        res.setHeader('content-type', 'text/html');
        return res.end('<p>a login page</p>');
      }
      if (req.url?.startsWith('/items')) {
        res.setHeader('content-type', 'application/json');
        return res.end('{"ok": true}');
      }
      if (req.method === 'POST') {
        res.setHeader('content-type', 'text/plain');
        return res.end('noted: ' + body);
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

async function run(name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `let api = use schema::openapi("wire.json");\nlet c = api.client("${base}");\n${body}`);
  const lines: string[] = [];
  const r = await startRun({ file, cwd: dir, model: 'mock', authority: { allowNet: ['127.0.0.1:*'] }, fetchSchemas: false, onOutput: (l) => lines.push(l) });
  return { result: await r.start(), lines };
}

test('parameters go in their styles, the cookie is sent, Accept prefers JSON, and the JSON reply binds', { timeout: 60_000 }, async () => {
  received.length = 0;
  const { result, lines } = await run('get.tn', `
// (a map stands for the struct: json_parse gives an Any)
let r = c.getItems(null, [1, 2], "s1", call("json_parse", "{\\"color\\": \\"red blue\\"}"), ["a", "b"]);
call("echo", "ok " + r["ok"]);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['ok true']);
  const got = received[0];
  assert.equal(got.url, '/items/;ids=1;ids=2?filter%5Bcolor%5D=red%20blue');
  assert.equal(got.headers.cookie, 'session=s1');
  assert.equal(got.headers['x-tags'], 'a,b');
  assert.equal(got.headers.accept, 'application/json, application/xml;q=0.5');
});

test('a Str JSON body goes as JSON; a text reply is decoded as text; a form body is form-encoded', { timeout: 60_000 }, async () => {
  received.length = 0;
  const { result, lines } = await run('post.tn', `
let t = c.addNote(null, "hi \\"there\\"");
call("echo", t);
c.putForm(null, call("json_parse", "{\\"name\\": \\"a&b\\", \\"tags\\": [\\"x\\", \\"y\\"]}"));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['noted: "hi \\"there\\""']);
  assert.equal(received[0].headers['content-type'], 'application/json');
  assert.equal(received[0].body, '"hi \\"there\\""');
  assert.equal(received[1].headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(received[1].body, 'name=a%26b&tags=x&tags=y');
});

test('attacks: a header value with CR/LF is refused before anything is sent; a reply of an undeclared type is an error naming both types', { timeout: 60_000 }, async () => {
  received.length = 0;
  const { result, lines } = await run('bad.tn', `
try {
    c.getItems(null, [1], "s1", null, ["ok", "x\\r\\nX-Injected: 1"]);
} catch (e) {
    call("echo", e["type"] + ": " + e["message"]);
}
try {
    c.getItems(null, [9], "s1", null, null);
} catch (e) {
    call("echo", e["type"] + ": " + e["message"]);
}
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, [
    'RequestError: getItems: header parameter "X-Tags": the value holds a line break or another control character, which would change the request\'s headers: it is not sent',
    'MediaTypeError: getItems: the reply (HTTP 200) is text/html, and the operation declares application/xml, application/json for it',
  ]);
  assert.equal(received.length, 1, 'only the second request was sent');
  assert.equal(received[0].headers['x-injected'], undefined);
});
