// Typed forms (issues 43/44): the model a webview form is drawn from (extension/forms/schema-form.ts),
// the webview's validator against the runtime's, what changed between two values, and the host's
// check of an answer before it acts (extension/forms/check.ts). Schemas come from Turn's own
// compiler (typeToSchema), as a what-if or a waiting run gets them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  changedFields, changeText, checkValue, emptyValue, fits, formModel, getAt, setAt, variantOf, type FormNode,
} from '../../extension/forms/schema-form.js';
import { checkAnswer, MAX_ANSWER_BYTES } from '../../extension/forms/check.js';
import { fieldName } from '../../extension/forms/webview/form.js';
import { typeToSchema, validateValue, type JsonSchema } from '../../runtime/index.js';
import { parseSource } from '../../runtime/syntax/parse.js';
import type { StructInfo } from '../../runtime/infer/schema.js';
import type * as A from '../../runtime/syntax/ast.js';

const TYPES = `
/// How urgent
type Level = "low" | "high" | "urgent";
struct Label { name: Str, score: Num }
struct Triage {
    /// the verdict
    verdict: "spam" | "ham",
    level: Level,
    reason: Str,
    count: Num,
    tags: List<Str>,
    note: Str?,
    labels: List<Label>,
    meta: Map<Str, Num>,
}
struct Tree { value: Num, kids: List<Tree> }
struct Cat { kind: "cat", lives: Num }
struct Dog { kind: "dog", good: Bool }
`;

/** The schema Turn's compiler makes for `type` (as the INFER of `infer TYPE` carries it). */
async function schemaOf(type: string): Promise<JsonSchema> {
  const { program, diagnostics } = await parseSource('t.tn', `${TYPES}\nlet x = infer ${type} { "x"; };`);
  assert.deepEqual(diagnostics, []);
  const structs = new Map<string, StructInfo>();
  const aliases = new Map<string, A.TypeExpr>();
  let inferred: A.TypeExpr | undefined;
  for (const s of program.body) {
    if (s.kind === 'Struct') structs.set(s.name.name, { name: s.name.name, typeParams: [], description: s.description, fields: s.fields.map((f) => ({ name: f.name.name, type: f.type, description: f.description, checks: f.checks })) });
    else if (s.kind === 'TypeAlias') aliases.set(s.name.name, s.type);
    else if (s.kind === 'Let' && s.value.kind === 'Infer') inferred = s.value.type;
  }
  return typeToSchema(inferred!, { struct: (n) => structs.get(n), alias: (n) => aliases.get(n) });
}

const TRIAGE_OK = { verdict: 'spam', level: 'high', reason: 'offer', count: 2, tags: ['a'], labels: [{ name: 'x', score: 0.5 }], meta: { k: 1 } };

describe('the form model of a Turn type', () => {
  test('a struct is a fieldset: enums as choices, a T? field optional, lists of rows, nested structs, a map as JSON', async () => {
    const node = formModel(await schemaOf('Triage'));
    assert.equal(node.kind, 'object');
    if (node.kind !== 'object') return;
    assert.equal(node.title, 'Triage');
    const f = Object.fromEntries(node.fields.map((x) => [x.name, x]));
    assert.deepEqual(f.verdict.node, { kind: 'enum', values: ['spam', 'ham'] });
    assert.deepEqual(f.level.node, { kind: 'enum', values: ['low', 'high', 'urgent'] });
    assert.equal(f.reason.node.kind, 'string');
    assert.equal(f.count.node.kind, 'number');
    assert.deepEqual(f.tags.node, { kind: 'list', item: { kind: 'string', multiline: true } });
    assert.equal(f.note.optional, true, 'a T? field may be left out');
    assert.equal(f.note.node.kind, 'string', 'one toggle covers optional and nullable');
    assert.equal(f.reason.optional, false);
    const labels = f.labels.node as Extract<FormNode, { kind: 'list' }>;
    assert.equal(labels.item.kind, 'object');
    assert.deepEqual((labels.item).fields.map((x) => x.name), ['name', 'score']);
    assert.deepEqual(f.meta.node, { kind: 'json', note: 'a map: edit it as JSON', empty: {} });
  });

  test('a fresh form holds each required field at its zero, optional ones left out, a map empty: a value of the type', async () => {
    const schema = await schemaOf('Triage');
    const empty = emptyValue(formModel(schema)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(empty).sort(), ['count', 'labels', 'level', 'meta', 'reason', 'tags', 'verdict']);
    assert.equal(empty.verdict, 'spam');
    assert.deepEqual(checkValue(schema, empty), [], 'the zero value of every field conforms here');
  });

  test('a recursive type stops at its second visit as a JSON box', async () => {
    const node = formModel(await schemaOf('Tree')) as Extract<FormNode, { kind: 'object' }>;
    const kids = node.fields.find((x) => x.name === 'kids')!.node as Extract<FormNode, { kind: 'list' }>;
    assert.equal(kids.item.kind, 'json');
  });

  test('a union of structs discriminated by a literal field is a choice of variants, named by their titles', () => {
    const schema = { anyOf: [{ title: 'Cat', type: 'object', properties: { kind: { type: 'string', const: 'cat' }, lives: { type: 'number' } }, required: ['kind', 'lives'], additionalProperties: false }, { title: 'Dog', type: 'object', properties: { kind: { type: 'string', const: 'dog' }, good: { type: 'boolean' } }, required: ['kind', 'good'], additionalProperties: false }] };
    const node = formModel(schema);
    assert.equal(node.kind, 'union');
    if (node.kind !== 'union') return;
    assert.deepEqual(node.variants.map((v) => v.label), ['Cat', 'Dog']);
    assert.equal(variantOf(node, { kind: 'dog', good: true }), 1);
    assert.equal(variantOf(node, { kind: 'cat', lives: 9 }), 0);
    assert.ok(!fits(node.variants[0].node, { kind: 'dog', good: true }));
  });

  test("an MCP elicitation's flat schema: strings, integers with bounds, booleans, enums; fields outside `required` optional", () => {
    const schema = { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 40 }, age: { type: 'integer', minimum: 0, maximum: 150 }, ok: { type: 'boolean' }, plan: { type: 'string', enum: ['a', 'b'] } }, required: ['name'] };
    const node = formModel(schema) as Extract<FormNode, { kind: 'object' }>;
    assert.deepEqual(node.fields.map((f) => [f.name, f.node.kind, f.optional]), [['name', 'string', false], ['age', 'integer', true], ['ok', 'boolean', true], ['plan', 'enum', true]]);
    assert.deepEqual(node.fields[1].node, { kind: 'integer', minimum: 0, maximum: 150 });
    assert.deepEqual(checkValue(schema, { name: '' }), [{ path: '/name', message: 'must not be empty' }]);
    assert.deepEqual(checkValue(schema, { name: 'x', age: 1.5 }), [{ path: '/age', message: 'must be a whole number, not 1.5' }]);
    assert.deepEqual(checkValue(schema, { name: 'x', age: 200 }), [{ path: '/age', message: 'must be ≤ 150' }]);
  });

  test('a hostile schema is bounded: too deep is a JSON box at the bound, too wide is one JSON box, garbage is JSON', () => {
    let deep: JsonSchema = { type: 'string' };
    for (let i = 0; i < 50; i++) deep = { type: 'object', properties: { x: deep }, required: ['x'] };
    let node = formModel(deep);
    let depth = 0;
    while (node.kind === 'object') {
      node = node.fields[0].node;
      depth++;
    }
    assert.equal(node.kind, 'json');
    assert.ok(depth <= 9, `stopped at depth ${depth}`);
    assert.match((node as { note?: string }).note ?? '', /deeper than 8/);
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${i}`, { type: 'string' }])) };
    const w = formModel(wide);
    assert.equal(w.kind, 'json');
    assert.match((w as { note?: string }).note ?? '', /more than 200 fields/);
    assert.deepEqual(formModel('not a schema'), { kind: 'json' });
    assert.deepEqual(formModel({ $ref: '#/$defs/nowhere' }), { kind: 'json', note: 'unknown reference #/$defs/nowhere' });
    const loop = { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } };
    assert.equal(formModel(loop).kind, 'json', 'a reference to itself ends');
    assert.deepEqual(checkValue(loop, 1), [{ path: '', message: 'nested too deep' }]);
  });
});

describe("the webview's validator, at the field", () => {
  test('each fault at its field with a message a person reads', async () => {
    const schema = await schemaOf('Triage');
    assert.deepEqual(checkValue(schema, TRIAGE_OK), []);
    const bad = { ...TRIAGE_OK, verdict: 'maybe', count: 'two', labels: [{ name: 'x' }], extra: 1 } as Record<string, unknown>;
    delete bad.reason;
    assert.deepEqual(checkValue(schema, bad), [
      { path: '/reason', message: 'is required' },
      { path: '/verdict', message: 'must be one of "spam", "ham"' },
      { path: '/count', message: 'must be a number, not text "two"' },
      { path: '/labels/0/score', message: 'is required' },
      { path: '/extra', message: 'is not a field of Triage' },
    ]);
    assert.deepEqual(checkValue(schema, { ...TRIAGE_OK, note: null }), [], 'a T? field may be null');
    assert.deepEqual(checkValue(schema, 'spam'), [{ path: '', message: 'must be an object, not text "spam"' }]);
  });

  test('agrees with the runtime validator on which values conform', async () => {
    const schema = await schemaOf('Triage');
    const cases: unknown[] = [
      TRIAGE_OK, { ...TRIAGE_OK, note: 'n' }, { ...TRIAGE_OK, note: null }, { ...TRIAGE_OK, level: 'mid' }, { ...TRIAGE_OK, tags: [1] },
      { ...TRIAGE_OK, meta: { k: 'v' } }, { ...TRIAGE_OK, count: null }, null, [], { ...TRIAGE_OK, labels: [{ name: 'a', score: 1, x: 2 }] },
    ];
    for (const c of cases) assert.equal(checkValue(schema, c).length === 0, validateValue(schema, c).length === 0, JSON.stringify(c));
  });
});

describe('what changed, and JSON Pointers', () => {
  test('the changed fields, leaf by leaf, old → new', () => {
    const before = { verdict: 'spam', level: 'high', tags: ['a', 'b'], labels: [{ name: 'x', score: 1 }] };
    const after = { verdict: 'ham', level: 'high', tags: ['a'], labels: [{ name: 'x', score: 0.2 }], note: 'n' };
    const changes = changedFields(before, after);
    assert.deepEqual(changes.map(changeText), ['verdict: "spam" → "ham"', 'tags: ["a","b"] → ["a"]', 'labels.0.score: 1 → 0.2', 'note: (absent) → "n"']);
    assert.deepEqual(changedFields('x', 'x'), []);
    assert.deepEqual(changedFields(1, 'one').map(changeText), ['the value: 1 → "one"']);
    const many = changedFields(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 1])), {});
    assert.equal(many.length, 20, 'bounded');
  });

  test('setAt and getAt follow JSON Pointers (escaped keys, list rows removed)', () => {
    const v = { 'a/b': { '~x': [1, 2, 3] } };
    assert.deepEqual(getAt(v, '/a~1b/~0x/1'), 2);
    assert.deepEqual(setAt(v, '/a~1b/~0x/1', undefined), { 'a/b': { '~x': [1, 3] } });
    assert.deepEqual(v['a/b']['~x'], [1, 2, 3], 'the original is not changed');
    assert.deepEqual(setAt({}, '/n/m', 1), { n: { m: 1 } });
    assert.equal(getAt({}, '/__proto__'), undefined, 'an inherited key is not a field');
    assert.equal(fieldName('/labels/0/score'), 'labels[0].score');
  });
});

describe("the host's check of an answer", () => {
  test('a well-typed answer is taken; an ill-typed one is refused with each fault at its field', async () => {
    const schema = await schemaOf('Triage');
    const ok = checkAnswer(schema, JSON.stringify(TRIAGE_OK));
    assert.deepEqual(ok, { ok: true, value: TRIAGE_OK });
    const bad = checkAnswer(schema, JSON.stringify({ ...TRIAGE_OK, verdict: 'maybe' }));
    assert.equal(bad.ok, false);
    if (bad.ok) return;
    assert.equal(bad.issues[0].path, '/verdict');
    assert.match(bad.message, /^\/verdict: /);
  });

  test('the host does not trust the webview: text that is not JSON, too long, too deep, or a broken schema is refused', () => {
    assert.match((checkAnswer(null, '{oops') as { message: string }).message, /not JSON/);
    assert.match((checkAnswer(null, JSON.stringify('x'.repeat(MAX_ANSWER_BYTES))) as { message: string }).message, /longer than/);
    assert.match((checkAnswer(null, '['.repeat(100) + ']'.repeat(100)) as { message: string }).message, /deeper than 64/);
    assert.deepEqual(checkAnswer(null, '{"any": [1]}'), { ok: true, value: { any: [1] } }, 'an unknown type takes any JSON');
    assert.match((checkAnswer({ type: 'no-such-type' }, '1') as { message: string }).message, /schema is not valid/);
  });
});
