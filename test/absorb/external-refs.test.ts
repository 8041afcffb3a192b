// `$ref`s to other files and to URLs resolve (bundled with @apidevtools/json-schema-ref-parser):
// files relative to the document that refers to them, URLs only through the caller's fetch (here a
// local server on 127.0.0.1) and the schema cache; what cannot be resolved is located at the $ref.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { absorbSchema } from '../../runtime/absorb/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-refs-'));
const cacheDir = path.join(dir, 'cache');
let server: http.Server;
let base = '';
const served: string[] = [];

const MONEY = `Money:
  type: object
  required: [amount, currency]
  properties:
    amount: {type: number}
    currency: {$ref: "#/Currency"}
Currency:
  type: string
  enum: [EUR, USD]
`;

function spec(ref: string): string {
  return `openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /orders/{id}:
    get:
      operationId: get_order
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: an order
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Order"}
components:
  schemas:
    Order:
      type: object
      required: [id, total]
      properties:
        id: {type: string}
        total: {$ref: "${ref}"}
`;
}

before(async () => {
  server = http.createServer((req, res) => {
    served.push(req.url ?? '');
    if (req.url === '/schemas/money.yaml') return res.end(MONEY);
    if (req.url === '/shop.yaml') return res.end(spec('schemas/money.yaml#/Money'));
    if (req.url === '/local.yaml') return res.end(spec('file://' + path.join(dir, 'common', 'money.yaml') + '#/Money'));
    res.statusCode = 404;
    res.end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fs.mkdirSync(path.join(dir, 'common'));
  fs.writeFileSync(path.join(dir, 'common', 'money.yaml'), MONEY);
});
after(() => server.close());

const fetchLocal = (url: string, init?: { signal?: AbortSignal }) => globalThis.fetch(url, init);

function totalFields(r: Awaited<ReturnType<typeof absorbSchema>>): string[] {
  const order = r.structs.find((s) => s.name === 'Order')!;
  const total = order.fields.find((f) => f.name === 'total')!;
  assert.equal(total.type.kind, 'Struct');
  const money = r.structs.find((s) => total.type.kind === 'Struct' && s.name === total.type.name)!;
  return money.fields.map((f) => `${f.name}: ${f.type.kind === 'Enum' ? f.type.values.join('|') : f.type.kind}`);
}

test('a $ref to another file resolves relative to the spec, with that file\'s own local refs', async () => {
  fs.writeFileSync(path.join(dir, 'shop.yaml'), spec('common/money.yaml#/Money'));
  const r = await absorbSchema('openapi', 'shop.yaml', dir, { cacheDir });
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(totalFields(r), ['amount: Num', 'currency: EUR|USD']);
});

test('a $ref to a URL is fetched through the caller\'s fetch, then read from the cache', async () => {
  fs.writeFileSync(path.join(dir, 'remote.yaml'), spec(`${base}/schemas/money.yaml#/Money`));
  const first = await absorbSchema('openapi', 'remote.yaml', dir, { cacheDir, fetch: fetchLocal });
  assert.deepEqual(first.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(totalFields(first), ['amount: Num', 'currency: EUR|USD']);
  assert.equal(served.filter((u) => u === '/schemas/money.yaml').length, 1);
  // without fetching (the editor before the quick fix, --no-fetch): the cached copy serves
  const again = await absorbSchema('openapi', 'remote.yaml', dir, { cacheDir });
  assert.deepEqual(totalFields(again), ['amount: Num', 'currency: EUR|USD']);
  assert.equal(served.filter((u) => u === '/schemas/money.yaml').length, 1);
});

test('a URL $ref that is not cached, when fetching is off, is an error located at the $ref', async () => {
  fs.writeFileSync(path.join(dir, 'offline.yaml'), spec(`${base}/schemas/other.yaml#/Money`));
  const r = await absorbSchema('openapi', 'offline.yaml', dir, { cacheDir: path.join(dir, 'empty-cache') });
  const e = r.diagnostics.find((d) => d.severity === 'error');
  assert.ok(e, JSON.stringify(r.diagnostics));
  assert.match(e.message, /cannot resolve an external \$ref: .*is not cached and fetching is not available here/);
  assert.equal(e.pointer, '#/components/schemas/Order/properties/total/$ref');
  assert.equal(e.line, 22);
});

test('a missing file or pointer is an error located at the $ref', async () => {
  fs.writeFileSync(path.join(dir, 'missing.yaml'), spec('common/nothing.yaml#/Money'));
  const r = await absorbSchema('openapi', 'missing.yaml', dir, { cacheDir });
  const e = r.diagnostics.find((d) => d.severity === 'error');
  assert.ok(e);
  assert.match(e.message, /cannot resolve an external \$ref: .*nothing\.yaml does not exist/);
  assert.equal(e.line, 22);
  fs.writeFileSync(path.join(dir, 'badpointer.yaml'), spec('common/money.yaml#/Monee'));
  const r2 = await absorbSchema('openapi', 'badpointer.yaml', dir, { cacheDir });
  assert.match(r2.diagnostics.find((d) => d.severity === 'error')?.message ?? '', /cannot resolve an external \$ref: .*Monee/);
});

test('a spec fetched from a URL resolves its relative refs against that URL, never against local files', async () => {
  const r = await absorbSchema('openapi', `${base}/shop.yaml`, dir, { cacheDir, fetch: fetchLocal });
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(totalFields(r), ['amount: Num', 'currency: EUR|USD']);
  const local = await absorbSchema('openapi', `${base}/local.yaml`, dir, { cacheDir, fetch: fetchLocal });
  assert.match(local.diagnostics.find((d) => d.severity === 'error')?.message ?? '', /cannot refer to the local file/);
});

test('a local spec\'s $ref outside its own folder (absolute, escaping with .., or through a symlink) is refused at the $ref, unread', async () => {
  // issue 28: compile-time reads are limited to the spec named in the `use` line and files under its folder
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-refs-outside-'));
  const secret = path.join(outside, 'secret.yaml');
  fs.writeFileSync(secret, MONEY.replace('amount', 'TOPSECRET_FIELD'));
  const specDir = path.join(dir, 'confined');
  fs.mkdirSync(specDir, { recursive: true });
  fs.symlinkSync(outside, path.join(specDir, 'link'));
  const escaping = path.relative(specDir, secret);
  assert.match(escaping, /^\.\.\//);
  for (const ref of [`${secret}#/Money`, `file://${secret}#/Money`, `${escaping}#/Money`, 'link/secret.yaml#/Money']) {
    fs.writeFileSync(path.join(specDir, 'shop.yaml'), spec(ref));
    const r = await absorbSchema('openapi', 'shop.yaml', specDir, { cacheDir });
    const e = r.diagnostics.find((d) => d.severity === 'error');
    assert.ok(e, `${ref}: ${JSON.stringify(r.diagnostics)}`);
    assert.match(e.message, /is outside the folder of the spec .*: a spec's \$refs may read only files under its own folder/, ref);
    assert.equal(e.pointer, '#/components/schemas/Order/properties/total/$ref', ref);
    assert.equal(e.line, 22, ref);
    assert.ok(!JSON.stringify(r).includes('TOPSECRET'), ref);
  }
  // a file under the spec's folder (also in a subfolder) still resolves
  fs.mkdirSync(path.join(specDir, 'common'), { recursive: true });
  fs.writeFileSync(path.join(specDir, 'common', 'money.yaml'), MONEY);
  fs.writeFileSync(path.join(specDir, 'shop.yaml'), spec('common/money.yaml#/Money'));
  const ok = await absorbSchema('openapi', 'shop.yaml', specDir, { cacheDir });
  assert.deepEqual(ok.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(totalFields(ok), ['amount: Num', 'currency: EUR|USD']);
});
