// The Turn module generated from an absorbed spec is correct by construction: whatever a spec names
// its types, properties, parameters and operations, and whatever strings and numbers it holds, the
// module parses and checks without errors — or absorption returns a located spec diagnostic. Never an
// internal error, never an exception. Property tests (fast-check) over generated JSON Schemas,
// OpenAPI documents and MCP tool lists, plus regressions for the shapes that used to break it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { absorbSchema, type AbsorbResult, type Protocol } from '../../runtime/absorb/index.js';
import { absorbedModuleSource } from '../../runtime/absorb/module.js';
import { TURN_KEYWORDS } from '../../runtime/absorb/schema.js';
import { checkSource } from '../../runtime/check/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-absorb-gen-'));
const cacheDir = path.join(dir, '.cache');
process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
let counter = 0;
/** How many specs produced a module, and how many ended in diagnostics: both branches must be exercised. */
const tally = { module: 0, diagnostics: 0 };

interface Outcome {
  result: AbsorbResult;
  /** The generated module's source, when absorption reported no error. */
  module?: string;
}

/**
 * Absorbs `text` as a `protocol` spec and checks the property: no exception, no internal error,
 * every error located (a JSON pointer or a line); without errors, the generated module parses and
 * checks without errors, declares every absorbed struct, and a program that `use`s the spec checks
 * without an internal error.
 */
async function absorbAndCheck(protocol: Protocol, text: string, ext = protocol === 'graphql' ? 'graphql' : 'json'): Promise<Outcome> {
  const name = `spec${counter++}.${ext}`;
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  const result = await absorbSchema(protocol, name, dir, { cacheDir });
  for (const d of result.diagnostics) {
    assert.doesNotMatch(d.message, /internal error/i, `${d.message}\nspec: ${text}`);
    assert.equal(d.file, file);
    if (d.severity === 'error') assert.ok(d.pointer !== undefined || d.line !== undefined, `unlocated: ${JSON.stringify(d)}\nspec: ${text}`);
  }
  if (result.diagnostics.some((d) => d.severity === 'error')) {
    tally.diagnostics++;
    return { result };
  }
  tally.module++;
  const module = absorbedModuleSource(result, protocol, name);
  const checked = await checkSource(path.join(dir, `module${counter}.tn`), module);
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => `${checked.file.position(d.span.start).line}: ${d.message}`), [], `the generated module has errors:\n${module}\nspec: ${text}`);
  const structs = checked.program.body.filter((s) => s.kind === 'Struct');
  assert.equal(structs.length, result.structs.length, 'every absorbed struct is declared');
  // Through the front end, as `turn check` sees a program that uses the spec.
  const program = `let api = use schema::${protocol}(${JSON.stringify(name)});\n`;
  const user = await checkSource(path.join(dir, `user${counter}.tn`), program);
  for (const d of user.diagnostics) assert.doesNotMatch(d.message, /internal error/i, `${d.message}\nspec: ${text}`);
  assert.deepEqual(user.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
  return { result, module };
}

// ---- Arbitraries

/** A raw JSON number token, emitted as written (JSON.stringify cannot write 1e400 or -0). */
class RawNumber {
  constructor(readonly text: string) {}
}

function jsonText(v: unknown): string {
  if (v instanceof RawNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

const NASTY_NAMES = [
  ...TURN_KEYWORDS, 'detach', 'identity', 'invoke', 'schema', 'scope', 'task',
  'auth', 'base', 'body', 'client', 'default_client', 'decode', 'graphql_data', 'mcp_result', 'data', 'res', 'reply',
  'Map', 'List', 'Any', 'Str', 'Num', 'Void', 'Identity', 'Pid', 'Vec', 'Bool', '__proto__', 'constructor', 'toString',
  '', ' ', '_', '1abc', '9', 'a-b', 'a b', 'A', 'a', 'ünï', '名前', '😀', 'x"y', 'a\\b', 'a\nb', 'a\r\nb', '\u2028', '\u0000', '\b\f',
  '\ud800', 'a\udc00', '*/', '/*', '//', '{x}', 'a/b', '~0', '%zz', 'x'.repeat(300),
];
const nameArb = fc.oneof(fc.constantFrom(...NASTY_NAMES), fc.string({ unit: 'binary', maxLength: 10 }), fc.string({ unit: 'grapheme-ascii', maxLength: 10 }));
const textArb = fc.oneof(fc.constantFrom(...NASTY_NAMES, 'line\nbreak', 'tab\tand\u000bvt', '"quoted"', '\\\\', '\u{10FFFF}', '\uFEFF'), fc.string({ unit: 'binary', maxLength: 20 }));
const numberArb = fc.oneof(
  fc.constantFrom('1e400', '-1e400', '-0', '0', '1E-400', '0.1', '123456789012345678901234567890', '-12.5e3').map((t) => new RawNumber(t)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const scalarArb = fc.oneof(textArb, numberArb, fc.boolean(), fc.constant(null));
const DEF_NAMES = ['A', 'B', 'if', 'Map', 'a b', '', 'x"y', '~0/1'];
const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const refArb = fc.oneof(
  fc.constantFrom(...DEF_NAMES).map((n) => `#/$defs/${escapePointer(n)}`),
  fc.constantFrom(...DEF_NAMES).map((n) => `#/components/schemas/${escapePointer(n)}`),
  fc.constantFrom('#', '#/', '#/nope', '#/$defs', 'other.json#/x', 'http://x.test/s.json', '#/$defs/%zz', '#/properties', '#/properties/a', '#/items', '#/paths'),
);
const TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'object', 'array', 'strang'];

const { schema: schemaArb } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(true, false, {}, { type: 'object' }, { type: 'object', properties: {} }, { type: 'array' }, 12, 'str', null, []),
    fc.record({ type: fc.oneof(fc.constantFrom(...TYPES), fc.array(fc.constantFrom(...TYPES), { maxLength: 3 })), nullable: fc.boolean(), description: textArb }, { requiredKeys: ['type'] }),
    fc.record({ enum: fc.array(scalarArb, { maxLength: 4 }), type: fc.constantFrom('string', 'number') }, { requiredKeys: ['enum'] }),
    fc.record({ enum: fc.array(textArb, { minLength: 1, maxLength: 1 }) }),
    fc.record({ const: scalarArb }),
    fc.record({ $ref: refArb, nullable: fc.boolean() }, { requiredKeys: ['$ref'] }),
    fc.record(
      {
        type: fc.constantFrom('object', undefined, ['object', 'null']),
        title: textArb,
        description: textArb,
        properties: fc.dictionary(nameArb, tie('schema'), { maxKeys: 5 }),
        required: fc.array(nameArb, { maxLength: 3 }),
      },
      { requiredKeys: ['properties'] },
    ),
    fc.record({ type: fc.constant('array'), items: tie('schema') }, { requiredKeys: ['items'] }),
    fc.record({ items: tie('schema') }),
    fc.record({ key: fc.constantFrom('oneOf', 'anyOf', 'allOf'), alts: fc.array(tie('schema'), { maxLength: 3 }) }).map(({ key, alts }) => ({ [key]: alts })),
  ),
}));

const jsonSchemaArb = fc.record(
  {
    $schema: fc.constantFrom('https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft-07/schema#', 'urn:other'),
    title: textArb,
    description: textArb,
    type: fc.constantFrom('object', 'array', 'string'),
    properties: fc.dictionary(nameArb, schemaArb, { maxKeys: 6 }),
    required: fc.array(nameArb, { maxLength: 4 }),
    items: schemaArb,
    $defs: fc.dictionary(fc.constantFrom(...DEF_NAMES), schemaArb, { maxKeys: 4 }),
    definitions: fc.dictionary(nameArb, schemaArb, { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

const paramArb = fc.record(
  {
    name: nameArb,
    in: fc.constantFrom('path', 'query', 'header', 'cookie', 'body'),
    required: fc.boolean(),
    description: textArb,
    schema: schemaArb,
  },
  { requiredKeys: ['name', 'in'] },
);
const mediaArb = fc.dictionary(fc.constantFrom('application/json', 'application/problem+json', 'text/plain', '*/*', 'x"y'), fc.record({ schema: schemaArb }), { maxKeys: 2 });
const operationArb = fc.record(
  {
    operationId: nameArb,
    summary: textArb,
    description: textArb,
    parameters: fc.array(fc.oneof(paramArb, fc.record({ $ref: refArb })), { maxLength: 4 }),
    requestBody: fc.record({ required: fc.boolean(), content: mediaArb }, { requiredKeys: ['content'] }),
    responses: fc.dictionary(fc.constantFrom('200', '201', '204', '2XX', 'default', '404'), fc.record({ description: textArb, content: mediaArb }, { requiredKeys: [] }), { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);
const pathArb = fc.oneof(
  fc.constantFrom('/a', '/a/{id}', '/{auth}/{base}/{body}', '/x"y/{b\\c}', '/ü/{名}', '/{}', 'nopath', '/a/{id', '/a\n/{x}', '/{client}'),
  textArb.map((s) => '/' + s),
);
const openApiArb = fc.record(
  {
    openapi: fc.constantFrom('3.0.3', '3.1.0'),
    info: fc.record({ title: textArb, version: fc.constant('1') }),
    servers: fc.array(fc.record({ url: fc.oneof(fc.constantFrom('http://api.test/v1', 'https://a"b.test/\\', '/relative', 'http://x.test/\n'), textArb) }), { maxLength: 1 }),
    paths: fc.dictionary(
      pathArb,
      fc.record(
        {
          parameters: fc.array(paramArb, { maxLength: 2 }),
          get: operationArb,
          post: operationArb,
          delete: operationArb,
        },
        { requiredKeys: [] },
      ),
      { maxKeys: 4 },
    ),
    components: fc.record({ schemas: fc.dictionary(fc.constantFrom(...DEF_NAMES), schemaArb, { maxKeys: 4 }) }),
  },
  { requiredKeys: ['openapi', 'paths'] },
);
const mcpArb = fc.record({
  tools: fc.array(
    fc.record(
      {
        name: nameArb,
        description: textArb,
        inputSchema: fc.record({ type: fc.constant('object'), properties: fc.dictionary(nameArb, schemaArb, { maxKeys: 4 }), required: fc.array(nameArb, { maxLength: 2 }) }, { requiredKeys: ['type'] }),
        outputSchema: schemaArb,
      },
      { requiredKeys: ['name', 'inputSchema'] },
    ),
    { maxLength: 4 },
  ),
});

const RUNS = Number(process.env.TURN_PROPERTY_RUNS ?? 120);

// ---- Properties

test('property: any JSON Schema absorbs into a module that parses and checks, or a located diagnostic', async () => {
  await fc.assert(
    fc.asyncProperty(jsonSchemaArb, async (schema) => {
      await absorbAndCheck('jsonschema', jsonText(schema));
    }),
    { numRuns: RUNS },
  );
});

test('property: the same schemas read as YAML (with .nan, .inf and -0) absorb as well', async () => {
  const yamlNumber = fc.constantFrom('.nan', '.inf', '-.inf', '-0', '0x1F', '1e400').map((t) => new RawNumber(t));
  await fc.assert(
    fc.asyncProperty(jsonSchemaArb, fc.array(yamlNumber, { minLength: 1, maxLength: 3 }), async (schema, numbers) => {
      // A flow-style YAML document: JSON text with YAML-only scalars in an enum.
      const withNumbers = { ...schema, properties: { ...schema.properties, n: { enum: numbers } } };
      await absorbAndCheck('jsonschema', `# YAML\n${jsonText(withNumbers)}\n`, 'yaml');
    }),
    { numRuns: Math.ceil(RUNS / 3) },
  );
});

test('property: any OpenAPI document absorbs into a module that parses and checks, or a located diagnostic', async () => {
  await fc.assert(
    fc.asyncProperty(openApiArb, async (doc) => {
      await absorbAndCheck('openapi', jsonText(doc));
    }),
    { numRuns: RUNS },
  );
});

test('property: any MCP tools/list result absorbs into a module that parses and checks, or a located diagnostic', async () => {
  await fc.assert(
    fc.asyncProperty(mcpArb, async (doc) => {
      await absorbAndCheck('mcp', jsonText(doc));
    }),
    { numRuns: Math.ceil(RUNS / 2) },
  );
});

test('the properties exercise both outcomes (runs after them)', () => {
  console.log(`generated specs: ${tally.module} absorbed into a module, ${tally.diagnostics} refused with a located diagnostic`);
  assert.ok(tally.module > tally.diagnostics / 4, JSON.stringify(tally));
  assert.ok(tally.diagnostics > 0, JSON.stringify(tally));
});

// ---- Regressions

test('regression: a property with a one-value enum (or a string const) absorbs and parses, as a literal type', async () => {
  const spec = { type: 'object', properties: { kind: { enum: ['circle'] }, shape: { const: 'square' }, r: { type: 'number' } }, required: ['kind'] };
  const { result, module } = await absorbAndCheck('jsonschema', JSON.stringify(spec));
  assert.deepEqual(result.diagnostics, []);
  assert.ok(module);
  const checked = await checkSource(path.join(dir, 'one-value.tn'), module);
  const struct = checked.program.body.find((s) => s.kind === 'Struct');
  assert.ok(struct?.kind === 'Struct');
  const kind = struct.fields.find((f) => f.name.name === 'kind');
  assert.deepEqual(kind?.type.kind === 'LiteralType' && kind.type.value, 'circle', 'the one value is a literal type');
  const shape = struct.fields.find((f) => f.name.name === 'shape');
  assert.deepEqual(shape?.type.kind === 'OptionalType' && shape.type.inner.kind === 'LiteralType' && shape.type.inner.value, 'square', 'a const not required is an optional literal');
});

test('regression: strings with quotes, backslashes, control characters and unpaired surrogates are escaped', async () => {
  const values = ['a"b', 'c\\d', 'e\nf', 'g\bh', 'i\fj', '\u0000', '\u2028', 'é語😀', '\ud800x'];
  const spec = { title: 'Odd */ title\n// next', description: 'doc\nwith */ and \u2028 breaks', type: 'object', properties: { v: { enum: values } } };
  const { result, module } = await absorbAndCheck('jsonschema', JSON.stringify(spec));
  assert.ok(module);
  const checked = await checkSource(path.join(dir, 'strings.tn'), module);
  const struct = checked.program.body.find((s) => s.kind === 'Struct');
  assert.ok(struct?.kind === 'Struct');
  const optional = struct.fields[0].type;
  assert.ok(optional.kind === 'OptionalType', 'a property not required is optional');
  const v = optional.inner;
  assert.ok(v.kind === 'EnumType');
  assert.deepEqual(v.values, [...values.slice(0, -1), '\ufffdx'], 'every value round-trips; an unpaired surrogate becomes U+FFFD');
  assert.ok(result.diagnostics.some((d) => d.severity === 'warning' && /unpaired UTF-16 surrogate/.test(d.message) && d.pointer), JSON.stringify(result.diagnostics));
});

test('regression: names that are keywords, built-in types or not identifiers; operations named like the module\'s own locals', async () => {
  const openapi = {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/{auth}/{base}': {
        post: {
          operationId: 'client',
          parameters: [
            { name: 'auth', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'base', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'body', in: 'query', schema: { type: 'string' } },
            { name: 'decode', in: 'header', schema: { type: 'string' } },
            { name: 'if', in: 'query', schema: { type: 'string' } },
          ],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/detach' } } } },
          responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Map' } } } } },
        },
      },
    },
    components: {
      schemas: {
        detach: { type: 'object', properties: { identity: { type: 'string' }, scope: { type: 'string' }, 'task-id': { type: 'string' }, '': { type: 'number' } } },
        Map: { type: 'object', properties: { invoke: { type: 'boolean' }, schema: { type: 'object', properties: {} } } },
      },
    },
  };
  const { result, module } = await absorbAndCheck('openapi', JSON.stringify(openapi));
  assert.ok(module);
  assert.ok(!result.operations.some((o) => o.name === 'client'), 'an operation never shadows `client`');
  assert.match(module, /"client": client/);
});

test('regression: $ref cycles, self-references and recursive YAML aliases', async () => {
  const cyclic = { $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' }, L: { type: 'array', items: { $ref: '#/$defs/L' } } }, type: 'object', properties: { a: { $ref: '#/$defs/A' }, l: { $ref: '#/$defs/L' }, self: { $ref: '#' } } };
  const r = await absorbAndCheck('jsonschema', JSON.stringify(cyclic));
  assert.ok(r.module);
  const yaml = `# recursive alias\ntype: object\nproperties: &p\n  next:\n    type: object\n    properties: *p\n`;
  await absorbAndCheck('jsonschema', yaml, 'yaml');
});

test('regression: schemas nested thousands of levels deep end in a located diagnostic or Any, not a stack overflow', async () => {
  for (const depth of [200, 5000]) {
    // Written as text: JSON.stringify itself runs out of stack on such a value.
    let s = '{"type":"string"}';
    for (let i = 0; i < depth; i++) s = i % 3 === 0 ? `{"type":"object","properties":{"p":${s}}}` : i % 3 === 1 ? `{"type":"array","items":${s}}` : `{"allOf":[${s}]}`;
    const { result } = await absorbAndCheck('jsonschema', `{"title":"Deep","type":"object","properties":{"root":${s}}}`);
    assert.ok(result.diagnostics.some((d) => /deep/.test(d.message)), JSON.stringify(result.diagnostics.slice(0, 3)));
  }
  const bracketed = '['.repeat(100_000) + ']'.repeat(100_000);
  const { result } = await absorbAndCheck('jsonschema', `{"type":"object","properties":{"a":{"enum":${bracketed}}}}`);
  assert.ok(result.diagnostics.length > 0 || result.structs.length > 0);
});

test('regression: GraphQL names that are Turn keywords or the module\'s locals', async () => {
  const sdl = `
    "A type \\"quoted\\" */ and\\nnewline"
    type Turn { if: String, let: Int, detach: ID, body: String }
    enum One { ONLY }
    input Map { auth: String, base: Int }
    type Query {
      client(auth: String, base: Int, body: ID, data: String): Turn
      one(decode: One): One
      map(in: Map): [[Turn]]
    }
  `;
  const { result, module } = await absorbAndCheck('graphql', sdl);
  assert.ok(module, JSON.stringify(result.diagnostics));
  assert.ok(!result.operations.some((o) => o.name === 'client'));
});

test('the keyword list matches the grammar', () => {
  const grammar = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'grammar', 'src', 'grammar.json'), 'utf8')) as { rules: unknown };
  const keywords = new Set<string>();
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(visit);
    else if (n && typeof n === 'object') {
      const o = n as Record<string, unknown>;
      if (o.type === 'STRING' && typeof o.value === 'string' && /^[A-Za-z_]\w*$/.test(o.value)) keywords.add(o.value);
      Object.values(o).forEach(visit);
    }
  };
  visit(grammar.rules);
  // `with` is a keyword only right after an infer's type (`infer T with { ... }`); everywhere else it
  // is a name (`let with = 1;`, a field `with`), so an absorbed name `with` needs no renaming; so is
  // `ask`, a keyword only before a type and a block (`ask T { ... }`), a name everywhere else
  const contextual = new Set(['with', 'ask']);
  for (const k of keywords) assert.ok(TURN_KEYWORDS.has(k) || contextual.has(k), `\`${k}\` is a keyword of the grammar`);
});

test('an unwritable schema cache is a diagnostic on the `use`, not an exception', async () => {
  const file = path.join(dir, 'not-a-folder');
  fs.writeFileSync(file, '');
  fs.writeFileSync(path.join(dir, 'plain.json'), JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }));
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(file, 'schemas');
  try {
    const r = await checkSource(path.join(dir, 'cache.tn'), 'let api = use schema::jsonschema("plain.json");\n');
    assert.deepEqual(r.diagnostics.map((d) => [d.code, /cannot write the module generated from plain\.json/.test(d.message)]), [['schema', true]]);
  } finally {
    process.env.TURN_SCHEMA_DIR = saved;
  }
});

test('a wide allOf is not mistaken for a deep one', async () => {
  const defs = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`P${i}`, { type: 'object', properties: { [`f${i}`]: { type: 'string' } } }]));
  const spec = { title: 'Wide', allOf: Object.keys(defs).map((k) => ({ $ref: `#/$defs/${k}` })), $defs: defs };
  const { result, module } = await absorbAndCheck('jsonschema', JSON.stringify(spec));
  assert.ok(module);
  assert.deepEqual(result.diagnostics, []);
  assert.equal(result.structs.find((s) => s.name === 'Wide')?.fields.length, 100);
});

test('regression: the new mappings (discriminated oneOf, literals, typed maps, checks, /// descriptions, recursion) generate a module that checks', async () => {
  const openapi = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/d': {
        get: {
          operationId: 'decide',
          responses: { '200': { content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Yes' }, { $ref: '#/components/schemas/No' }, { type: 'null' }], discriminator: { propertyName: 'kind' } } } } } },
        },
      },
    },
    components: {
      schemas: {
        Yes: { type: 'object', required: ['kind'], description: 'first line\n\n/// third line with slashes\n*/ and \u2028', properties: { kind: { type: 'string' }, amount: { type: 'number', minimum: -1.5, exclusiveMaximum: 1e21, multipleOf: 0.5 } } },
        No: { type: 'object', required: ['kind', 'why'], properties: { kind: { type: 'string' }, why: { type: 'string', minLength: 1, maxLength: 10, pattern: '^[a-z"\\\\]+$' }, bad: { type: 'string', pattern: '(?<!x' } } },
        Tree: { type: 'object', properties: { value: { const: 3 }, flag: { const: true }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' }, maxItems: 4 }, labels: { additionalProperties: { type: ['string', 'null'] } }, mixed: { type: ['string', 'number'] }, odd: { enum: [1, 'a', false, null] } } },
      },
    },
  };
  const { result, module } = await absorbAndCheck('openapi', JSON.stringify(openapi));
  assert.ok(module, JSON.stringify(result.diagnostics));
  assert.match(module, /struct Yes \{\n {4}kind: "Yes",\n {4}amount: Num\? @minimum\(-1\.5\) @exclusive_maximum\(1e\+21\) @multiple_of\(0\.5\)/);
  assert.match(module, /\/\/\/ first line\n\/\/\/\n\/\/\/ \/\/\/ third line with slashes\n\/\/\/ \*\/ and\nstruct Yes/);
  assert.match(module, /why: Str @min_length\(1\) @max_length\(10\) @pattern\("\^\[a-z\\"\\\\\\\\\]\+\$"\)/);
  assert.match(module, /bad: Str\?,?\n/, 'a pattern the linear-time engine cannot compile is not a check');
  assert.ok(result.diagnostics.some((d) => d.severity === 'warning' && /the pattern "\(\?<!x" uses a lookbehind assertion .*; it is not checked$/.test(d.message)));
  assert.match(module, /value: 3\?,\n {4}flag: true\?,\n {4}children: List<Tree>\? @max_items\(4\),\n {4}labels: Map<Str, Str\?>\?,\n {4}mixed: \(Str \| Num\)\?,\n {4}odd: \("a" \| 1 \| false\)\?/);
  assert.match(module, /"decide": turn\(auth: Any, arguments_given: List\) -> Yes \| No \{/);
});
