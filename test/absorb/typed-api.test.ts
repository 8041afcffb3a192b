// Absorbed APIs are typed in the checker: the operations of an OpenAPI, GraphQL or MCP spec are
// known by name, parameters and result, so a wrong name, a wrong number or type of arguments and an
// unknown field of the result are located errors of `turn check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';

const FIX = path.join(__dirname, 'fixtures');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-typed-api-'));
process.env.TURN_SCHEMA_DIR ??= path.join(dir, '.schemas');
for (const f of ['library.graphql', 'mcp-tools.json']) fs.copyFileSync(path.join(FIX, f), path.join(dir, f));
fs.copyFileSync(path.join(__dirname, '..', '..', 'examples', 'market.yaml'), path.join(dir, 'market.yaml'));

async function messages(text: string): Promise<string[]> {
  const file = path.join(dir, 'a.tn');
  const r = await checkSource(file, text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d).slice(dir.length + 1));
}

test('OpenAPI: operation names, arity, argument types and result fields are checked', async () => {
  assert.deepEqual(await messages(`
let api = use schema::openapi("market.yaml");
let market = api.client("http://127.0.0.1:8080/v1");
let q = market.get_quote(null, "ACME");
let price: Num = q.price;
let own = api.get_quote(grant identity::bearer("market"), "ACME");
call("echo", own.symbol);
`), []);
  assert.deepEqual(await messages(`
let api = use schema::openapi("market.yaml");
api.get_quotes(null);
let market = api.client(8080);
let q = market.get_quote(null);
let r = market.get_quote(null, 42);
call("echo", r.nonexistent_field);
let p: Str = r.price;
`), [
    'a.tn:3:5: market.yaml has no operation `get_quotes` (did you mean `get_quote`?) (it has get_quote, unvalidated)',
    'a.tn:4:25: type mismatch: parameter `base` of `client` is Str, got Num',
    'a.tn:5:9: `get_quote` takes 2 arguments, got 1',
    'a.tn:6:32: type mismatch: parameter `symbol` of `get_quote` is Str, got Num',
    'a.tn:7:16: Quote has no field `nonexistent_field`',
    'a.tn:8:14: type mismatch: `p` is declared Str, got Num',
  ]);
});

test('GraphQL: query and mutation fields are typed operations', async () => {
  const m = await messages(`
let lib = use schema::graphql("library.graphql");
let gql = lib.client("http://127.0.0.1:8080/graphql");
let b = gql.book(null, "1");
let t: Str = b.title;
if b != null { call("echo", b.isbn); }
gql.boook(null, "1");
gql.book(null);
`);
  assert.deepEqual(m, [
    // \`book(id: ID!): Book\` is nullable: the server answers null for no book
    'a.tn:5:16: `b` may be null (Book?): test it first, e.g. `if b != null { ... }`',
    'a.tn:6:31: Book has no field `isbn`',
    'a.tn:7:5: library.graphql has no operation `boook` (did you mean `book`?) (it has book, books, addBook, unvalidated)',
    'a.tn:8:1: `book` takes 2 arguments, got 1',
  ]);
});

test('MCP: tools are typed operations; an operation needs a server when the spec names none', async () => {
  const m = await messages(`
let tools = use schema::mcp("mcp-tools.json");
let srv = tools.client("http://127.0.0.1:8080/mcp");
srv.get_weather(null, 42, null);
tools.get_weather(null, "Paris", null);
srv.get_wether(null, "Paris", null);
`);
  assert.equal(m[0], 'a.tn:4:23: type mismatch: parameter `city` of `get_weather` is Str, got Num');
  assert.match(m[1], /^a\.tn:5:7: `get_weather`: mcp-tools\.json names no server, so its operations are reached through `client\(BASE_URL\)`$/);
  assert.match(m[2], /^a\.tn:6:5: mcp-tools\.json has no operation `get_wether` \(did you mean `get_weather`\?\)/);
  assert.equal(m.length, 3);
});
