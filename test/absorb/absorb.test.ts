// Schema absorption against the fixture specs in test/absorb/fixtures (never the network).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { absorbSchema, cacheFileFor, type AbsorbResult, type FetchLike } from '../../runtime/absorb/index.js';

const FIX = path.join(__dirname, 'fixtures');
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-absorb-'));

function struct(r: AbsorbResult, name: string) {
  const s = r.structs.find((x) => x.name === name);
  assert.ok(s, `struct ${name} absorbed (have ${r.structs.map((x) => x.name).join(', ')})`);
  return s;
}
function field(r: AbsorbResult, s: string, f: string) {
  const x = struct(r, s).fields.find((y) => y.name === f);
  assert.ok(x, `field ${s}.${f}`);
  return x;
}
function op(r: AbsorbResult, name: string) {
  const o = r.operations.find((x) => x.name === name);
  assert.ok(o, `operation ${name} (have ${r.operations.map((x) => x.name).join(', ')})`);
  return o;
}
const errors = (r: AbsorbResult) => r.diagnostics.filter((d) => d.severity === 'error');

test('OpenAPI 3.0 YAML: component schemas become structs with ordered, typed, optional fields', async () => {
  const r = await absorbSchema('openapi', 'petstore.yaml', FIX, { cacheDir });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(struct(r, 'Pet').fields.map((f) => f.name), ['id', 'name', 'tag', 'status', 'category', 'owner', 'created_at']);
  assert.equal(struct(r, 'Pet').doc, 'A pet in the store.');
  assert.deepEqual(field(r, 'Pet', 'id'), { name: 'id', wireName: 'id', type: { kind: 'Num' }, optional: false });
  assert.equal(field(r, 'Pet', 'tag').optional, true, 'nullable → optional');
  assert.deepEqual(field(r, 'Pet', 'status').type, { kind: 'Enum', values: ['available', 'pending', 'sold'] }, 'a $ref to a string enum is inlined');
  assert.deepEqual(field(r, 'Pet', 'category').type, { kind: 'Struct', name: 'PetCategory' }, 'a nested object becomes its own struct');
  assert.deepEqual(struct(r, 'PetCategory').fields.map((f) => [f.name, f.type.kind]), [['id', 'Num'], ['label', 'Str']]);
  assert.equal(field(r, 'Pet', 'created_at').wireName, 'created-at');
  // Cycle Pet → Owner → List<Pet>.
  assert.deepEqual(field(r, 'Pet', 'owner').type, { kind: 'Struct', name: 'Owner' });
  assert.deepEqual(field(r, 'Owner', 'pets').type, { kind: 'List', element: { kind: 'Struct', name: 'Pet' } });
  // allOf merges.
  assert.deepEqual(struct(r, 'NewPet').fields.map((f) => [f.name, f.optional]), [['name', false], ['tag', true]]);
  assert.ok(!r.structs.some((s) => s.name === 'Status'), 'a string enum is not a struct');
});

test('OpenAPI 3.0 YAML: operations carry method, path, params, body and result', async () => {
  const r = await absorbSchema('openapi', 'petstore.yaml', FIX, { cacheDir });
  const list = op(r, 'listPets');
  assert.equal(list.method, 'GET');
  assert.equal(list.path, '/pets');
  assert.equal(list.baseUrl, 'http://petstore.local/v1');
  assert.deepEqual(list.params.map((p) => [p.name, p.in, p.optional]), [['x_trace_id', 'header', true], ['limit', 'query', true], ['tags', 'query', true]]);
  assert.equal(list.params[0].wireName, 'X-Trace-Id', 'path-level $ref parameter resolved');
  assert.deepEqual(list.params[2].type, { kind: 'List', element: { kind: 'Str' } });
  assert.deepEqual(list.result, { kind: 'List', element: { kind: 'Struct', name: 'Pet' } });
  const create = op(r, 'createPet');
  assert.deepEqual(create.body, { type: { kind: 'Struct', name: 'NewPet' }, optional: false, contentType: 'application/json' });
  assert.deepEqual(create.result, { kind: 'Struct', name: 'Pet' }, '201 is a success response');
  const show = op(r, 'showPetById');
  assert.deepEqual(show.params.map((p) => [p.name, p.in, p.optional]), [['petId', 'path', false]]);
  const del = op(r, 'delete_pets_by_petId');
  assert.equal(del.method, 'DELETE');
  assert.deepEqual(del.result, { kind: 'Void' }, 'no content → Void');
  assert.equal(del.origin, '#/paths/~1pets~1{petId}/delete');
});

test('OpenAPI 3.1 JSON: type lists with null, self-reference, free-form maps, inline bodies', async () => {
  const r = await absorbSchema('openapi', 'tasks-3.1.json', FIX, { cacheDir });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(field(r, 'Task', 'due'), { name: 'due', wireName: 'due', type: { kind: 'Str' }, optional: true, nullable: true });
  assert.deepEqual(field(r, 'Task', 'subtasks').type, { kind: 'List', element: { kind: 'Struct', name: 'Task' } });
  assert.deepEqual(field(r, 'Task', 'meta').type, { kind: 'Map', value: { kind: 'Str' } }, 'additionalProperties: T → Map<Str, T>');
  assert.deepEqual(field(r, 'Task', 'priority'), { name: 'priority', wireName: 'priority', type: { kind: 'Num' }, optional: true, nullable: true });
  const list = op(r, 'list_tasks');
  assert.deepEqual(list.params.map((p) => [p.name, p.in, p.type.kind]), [['projectId', 'path', 'Num'], ['state', 'query', 'Enum']]);
  const put = op(r, 'put_projects_by_projectId_tasks');
  assert.equal(put.body?.type.kind, 'Struct');
  const body = struct(r, (put.body.type as { name: string }).name);
  assert.deepEqual(body.fields.map((f) => [f.name, f.optional]), [['title', false], ['labels', true]]);
});

test('JSON Schema: the root and $defs become structs', async () => {
  const r = await absorbSchema('jsonschema', 'person.schema.json', FIX, { cacheDir });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.operations, []);
  assert.deepEqual(struct(r, 'Person').fields.map((f) => [f.name, f.type.kind, f.optional]), [
    ['name', 'Str', false], ['age', 'Num', true], ['address', 'Struct', false], ['emails', 'List', true], ['role', 'Enum', true],
  ]);
  assert.deepEqual(struct(r, 'Address').fields.map((f) => [f.name, f.optional]), [['street', true], ['city', false]]);
});

test('GraphQL SDL: types become structs, queries and mutations callables with a query document', async () => {
  const r = await absorbSchema('graphql', 'library.graphql', FIX, { cacheDir });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(struct(r, 'Book').fields.map((f) => [f.name, f.type.kind, f.optional]), [
    ['id', 'Str', false], ['title', 'Str', false], ['year', 'Num', true], ['rating', 'Num', true], ['author', 'Struct', false], ['genre', 'Enum', true],
  ]);
  // `Author.books` is in no query (`book` selects `author { name }`: Book is already on the path), so
  // the struct a reply binds to has no `books`: reading it is a checker error, not a run-time null
  assert.deepEqual(struct(r, 'Author').fields.map((f) => f.name), ['name']);
  assert.ok(r.structs.some((s) => s.name === 'NewBook'), 'input types are structs');
  assert.ok(!r.structs.some((s) => s.name === 'Query' || s.name === 'Mutation'));
  const book = op(r, 'book');
  assert.equal(book.graphql?.operation, 'query');
  assert.equal(book.graphql?.document, 'query Book($id: ID!) { book(id: $id) { id title year rating author { name } genre } }');
  assert.deepEqual(book.params, [{ name: 'id', wireName: 'id', in: 'variable', type: { kind: 'Str' }, optional: false }]);
  const add = op(r, 'addBook');
  assert.equal(add.graphql?.operation, 'mutation');
  assert.deepEqual(add.params[0].type, { kind: 'Struct', name: 'NewBook' });
  assert.deepEqual(add.result, { kind: 'Struct', name: 'Book' });
});

test('MCP tools/list: each tool becomes a typed callable', async () => {
  const r = await absorbSchema('mcp', 'mcp-tools.json', FIX, { cacheDir });
  assert.deepEqual(r.diagnostics, []);
  const w = op(r, 'get_weather');
  assert.equal(w.mcp?.tool, 'get_weather');
  assert.deepEqual(w.params.map((p) => [p.name, p.in, p.type.kind, p.optional]), [['city', 'argument', 'Str', false], ['units', 'argument', 'Enum', true]]);
  const s = op(r, 'search_files');
  assert.equal(s.mcp?.tool, 'search-files', 'the wire name is kept');
  assert.deepEqual((s.mcp?.inputSchema as { required: string[] }).required, ['query']);
  assert.deepEqual(s.result, { kind: 'Struct', name: 'SearchFilesResult' });
});

test('malformed YAML: a diagnostic with line and column, no crash', async () => {
  const r = await absorbSchema('openapi', 'malformed-syntax.yaml', FIX, { cacheDir });
  const [d] = errors(r);
  assert.ok(d, 'an error');
  assert.match(d.message, /invalid YAML/);
  assert.equal(d.file, path.join(FIX, 'malformed-syntax.yaml'));
  assert.ok(d.line !== undefined && d.line >= 7, `line of the error (${d.line})`);
  assert.ok(d.column !== undefined);
});

test('malformed JSON: a diagnostic at the offending line', async () => {
  const r = await absorbSchema('openapi', 'malformed-syntax.json', FIX, { cacheDir });
  const [d] = errors(r);
  assert.match(d.message, /invalid JSON/);
  assert.equal(d.line, 4);
});

test('Swagger 2.0 is refused with its location', async () => {
  const r = await absorbSchema('openapi', 'swagger2.json', FIX, { cacheDir });
  assert.deepEqual(r.structs, []);
  const [d] = errors(r);
  assert.match(d.message, /Swagger 2\.0 is not supported/);
  assert.equal(d.pointer, '#/swagger');
  assert.deepEqual([d.line, d.column], [2, 3]);
});

test('unknown and external $refs, bad types: diagnostics with pointers and positions, the rest still absorbed', async () => {
  const r = await absorbSchema('openapi', 'unknown-ref.yaml', FIX, { cacheDir });
  const missing = r.diagnostics.find((d) => /unknown \$ref "#\/components\/schemas\/Missing"/.test(d.message));
  assert.ok(missing, JSON.stringify(r.diagnostics));
  assert.equal(missing.severity, 'error');
  assert.equal(missing.pointer, '#/paths/~1things/get/responses/200/content/application~1json/schema/$ref');
  assert.deepEqual([missing.line, missing.column], [15, 17]);
  const external = r.diagnostics.find((d) => /external \$ref/.test(d.message));
  assert.equal(external?.pointer, '#/components/schemas/Thing/properties/other/$ref');
  assert.equal(external?.line, 22);
  const badType = r.diagnostics.find((d) => /unknown schema type "strang"/.test(d.message));
  assert.equal(badType?.line, 24);
  assert.deepEqual(op(r, 'listThings').result, { kind: 'Any' });
  assert.deepEqual(field(r, 'Thing', 'other').type, { kind: 'Any' });
});

test('malformed GraphQL and MCP lists: diagnostics, no crash', async () => {
  const g = await absorbSchema('graphql', 'malformed.graphql', FIX, { cacheDir });
  assert.equal(errors(g).length, 1);
  assert.match(errors(g)[0].message, /invalid GraphQL SDL/);
  assert.ok(errors(g)[0].line! >= 7);
  const m = await absorbSchema('mcp', 'malformed-mcp.json', FIX, { cacheDir });
  assert.deepEqual(m.operations.map((o) => o.name), ['ok'], 'the valid tool is kept');
  assert.deepEqual(errors(m).map((d) => [d.message, d.pointer, d.line]), [['a tool needs a "name"', '#/tools/1', 1]]);
});

test('missing files, unknown protocols and non-object documents are diagnostics', async () => {
  const a = await absorbSchema('openapi', 'nope.yaml', FIX, { cacheDir });
  assert.match(errors(a)[0].message, /does not exist/);
  const b = await absorbSchema('soap', 'petstore.yaml', FIX, { cacheDir });
  assert.match(errors(b)[0].message, /unknown schema protocol "soap"/);
  const c = await absorbSchema('openapi', 'library.graphql', FIX, { cacheDir });
  assert.ok(errors(c).length > 0);
  const d = await absorbSchema('jsonschema', 'petstore.yaml', FIX, { cacheDir });
  assert.ok(Array.isArray(d.structs), 'never throws');
});

test('URLs: fetched once through the injected fetch, cached by URL hash, refreshed on request', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-absorb-cache-'));
  const url = 'https://specs.example.test/petstore.yaml';
  let calls = 0;
  let text = fs.readFileSync(path.join(FIX, 'petstore.yaml'), 'utf8');
  const fetch: FetchLike = async (u) => {
    calls++;
    assert.equal(u, url);
    return { ok: true, status: 200, text: async () => text };
  };
  const first = await absorbSchema('openapi', url, FIX, { cacheDir: dir, fetch });
  assert.equal(calls, 1);
  assert.equal(first.resolvedFrom?.cached, false);
  assert.ok(first.structs.some((s) => s.name === 'Pet'));
  assert.ok(fs.existsSync(cacheFileFor(dir, url)));
  const second = await absorbSchema('openapi', url, FIX, { cacheDir: dir, fetch });
  assert.equal(calls, 1, 'served from the cache');
  assert.equal(second.resolvedFrom?.cached, true);
  assert.deepEqual(second.structs, first.structs);
  text = text.replace('NewPet:', 'FreshPet:').replace("'#/components/schemas/NewPet'", "'#/components/schemas/FreshPet'");
  const third = await absorbSchema('openapi', url, FIX, { cacheDir: dir, fetch, refresh: true });
  assert.equal(calls, 2, 'refresh re-fetches');
  assert.ok(third.structs.some((s) => s.name === 'FreshPet'));
  // A failing refresh falls back to the cached copy with a warning.
  const failing: FetchLike = async () => ({ ok: false, status: 503, text: async () => '' });
  const fourth = await absorbSchema('openapi', url, FIX, { cacheDir: dir, fetch: failing, refresh: true });
  assert.ok(fourth.structs.some((s) => s.name === 'FreshPet'));
  assert.match(fourth.diagnostics[0].message, /could not refresh .* \(HTTP 503\); using the cached copy/);
  assert.equal(fourth.diagnostics[0].severity, 'warning');
  // Uncached and no fetch: a diagnostic, no network.
  const none = await absorbSchema('openapi', 'https://specs.example.test/other.json', FIX, { cacheDir: dir });
  assert.match(errors(none)[0].message, /is not cached/);
});
