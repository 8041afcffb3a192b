// Turn v1's host tools against a local server on 127.0.0.1 and a temp folder: http_get(url) and
// http_post({"url", "body"}) give the body text (an error outside 2xx) under the network
// capability; fs_read(path) and fs_write({"path", "content"}) use the run's own file grant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { EffectDenied } from '../../runtime/effects/capabilities.js';
import { EnvVault } from '../../runtime/effects/vault.js';
import { fsRead, fsWrite, httpGetV1, httpPostV1, type EffectToolContext } from '../../runtime/effects/tools.js';

let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/missing') res.statusCode = 404;
      res.end(`${req.method} ${req.url} ${body}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-v1-tools-'));
const ctx = (network: string[]): EffectToolContext => ({
  vault: new EnvVault({}),
  capabilities: { network: { hosts: network }, files: [{ roots: [dir], mode: 'write' }] },
  cwd: dir,
  timeoutMs: 5000,
});

test('http_get and http_post give the body text; outside 2xx they fail; the network grant applies', async () => {
  assert.equal(await httpGetV1(ctx(['127.0.0.1:*']), `${base}/quote`), 'GET /quote ');
  assert.equal(await httpPostV1(ctx(['127.0.0.1:*']), { url: `${base}/orders`, body: { n: 1 } }), 'POST /orders {"n":1}');
  await assert.rejects(httpGetV1(ctx(['127.0.0.1:*']), `${base}/missing`), /HTTP request failed with status: 404/);
  await assert.rejects(httpGetV1(ctx([]), `${base}/quote`), (e: Error) => e instanceof EffectDenied);
  await assert.rejects(httpPostV1(ctx(['127.0.0.1:*']), `${base}/x`), /http_post expects a map/);
});

test('fs_write with one map and fs_read with one path use the run\'s own grant', async () => {
  const file = path.join(dir, 'memo.txt');
  assert.equal(await fsWrite(ctx([]), { path: file, content: 'v1' }, undefined, undefined), null);
  assert.equal(await fsRead(ctx([]), file, undefined), 'v1');
  await assert.rejects(fsWrite(ctx([]), { path: path.join(os.tmpdir(), 'elsewhere.txt'), content: 'x' }, undefined, undefined), (e: Error) => e instanceof EffectDenied);
});
