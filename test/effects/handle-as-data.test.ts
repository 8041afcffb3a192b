// An identity handle where data goes (issue 26, item 6): as an HTTP body it was sent as
// {"kind":"bearer","name":"svc"}, as a header value as `x-leak: [object Object]`. It is the
// authority to use a secret, sent only as the `auth` argument; anywhere else in a request it is
// refused with a located error, and nothing is sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startRun } from '../../runtime/index.js';

let server: http.Server;
let port = 0;
const seen: string[] = [];
before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

test('a handle as an HTTP body, a header value or a query parameter is refused at the call, and nothing is sent', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-handle-data-'));
  const file = path.join(dir, 'p.tn');
  const url = `http://127.0.0.1:${port}/x`;
  fs.writeFileSync(
    file,
    `let net = use "std/net";
let svc = grant identity::bearer("svc");
try { net.post(null, "${url}", svc); } catch (e) { call("echo", "body: " + e["message"]); }
try { net.post(null, "${url}", {"nested": [svc]}); } catch (e) { call("echo", "nested: " + e["message"]); }
try { net.request(null, "GET", "${url}", {"headers": {"x-leak": svc}}); } catch (e) { call("echo", "header: " + e["message"]); }
try { net.request(null, "GET", "${url}", {"query": {"k": svc}}); } catch (e) { call("echo", "query: " + e["message"]); }
let ok = net.request(svc, "GET", "${url}", {"headers": {"x-fine": "1"}});
call("echo", "auth: " + ok["status"]);
`,
  );
  const lines: string[] = [];
  const run = await startRun({ file, cwd: dir, model: 'mock', fetchSchemas: false, env: { TURN_SECRET_SVC: 'tn-svc-secret-77' }, authority: { allowNet: ['127.0.0.1:*'] }, onOutput: (l) => lines.push(l) });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 300));
  for (const where of ['body', 'nested', 'header', 'query']) {
    assert.ok(lines.some((l) => l.startsWith(`${where}: `) && /an identity handle cannot be sent as/.test(l)), `${where}: ${lines.join('\n')}`);
  }
  assert.ok(lines.includes('auth: 200'), lines.join('\n'));
  assert.equal(seen.length, 1, seen.join('\n'));
  assert.match(seen[0], /"authorization":"Bearer tn-svc-secret-77"/);
  assert.doesNotMatch(seen.join('\n'), /"kind"|object Object/);
});
