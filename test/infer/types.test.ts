// Issue 23: optional fields, unions, literal types, typed maps, recursive structs, descriptions and
// checks, end to end: the schema a type compiles to, the validator's words, the mock model, re-asks
// of a script fixture, and what an OpenAI-compatible server in strict mode receives.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseSource } from '../../runtime/syntax/parse.js';
import { typeToSchema, type StructInfo } from '../../runtime/infer/schema.js';
import { validateValue } from '../../runtime/infer/validate.js';
import { mockValue } from '../../runtime/infer/mock.js';
import { wireSchema } from '../../runtime/infer/prompt.js';
import { strictSchema } from '../../runtime/infer/provider-schema.js';
import { fromReply } from '../../runtime/infer/reply-value.js';
import { StructVal } from '../../runtime/values/index.js';
import { createModel } from '../../runtime/run/model.js';
import type * as A from '../../runtime/syntax/ast.js';
import { failure, mock, okJson, runWith, script } from './helpers.js';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';
import { fakeServer, openaiCompletion, type FakeServer } from '../providers/fake-server.js';

const TYPES = `
/// A contact found in the text.
struct Contact {
  /// Full name as written in the text.
  name: Str @length(1, 200),
  email: Str? @pattern("^[^@ ]+@[^@ ]+$"),
  age: Num? @range(0, 150) @check("even", turn(v) { return call("floor", v / 2) * 2 == v; }),
  tags: List<Str> @max_items(5),
};
struct Tree { value: Num, children: List<Tree> }
struct Rated { n: Num @check("even", turn(v) { return call("floor", v / 2) * 2 == v; }) }
struct Deep { label: Str, kids: List<Deep>, rated: List<Rated> }
struct Approve { kind: "approve", amount: Num @minimum(0) }
struct Reject { kind: "reject", reason: Str }
type Decision = Approve | Reject;
`;

async function schemaOf(type: string): Promise<Record<string, unknown>> {
  const { program, diagnostics } = await parseSource('t.tn', `${TYPES}\nlet x = infer ${type} { "x"; };`);
  assert.deepEqual(diagnostics, []);
  const structs = new Map<string, StructInfo>();
  const aliases = new Map<string, A.TypeExpr>();
  let inferred: A.TypeExpr | undefined;
  for (const s of program.body) {
    if (s.kind === 'Struct') {
      structs.set(s.name.name, {
        name: s.name.name,
        typeParams: [],
        description: s.description,
        fields: s.fields.map((f) => ({ name: f.name.name, type: f.type, description: f.description, checks: f.checks })),
      });
    } else if (s.kind === 'TypeAlias') aliases.set(s.name.name, s.type);
    else if (s.kind === 'Let' && s.value.kind === 'Infer') inferred = s.value.type;
  }
  return typeToSchema(inferred!, { struct: (n) => structs.get(n), alias: (n) => aliases.get(n) });
}

test('schema: optional fields are nullable and not required; descriptions and check keywords are kept', async () => {
  const s = await schemaOf('Contact');
  assert.equal(s.description, 'A contact found in the text.');
  assert.deepEqual(s.required, ['name', 'tags']);
  const props = s.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.name, { type: 'string', minLength: 1, maxLength: 200, description: 'Full name as written in the text.' });
  assert.deepEqual(props.email, { anyOf: [{ type: 'string', pattern: '^[^@ ]+@[^@ ]+$' }, { type: 'null' }] });
  assert.deepEqual(props.tags, { type: 'array', items: { type: 'string' }, maxItems: 5 });
  const age = (props.age.anyOf as Record<string, unknown>[])[0];
  assert.equal(age.minimum, 0);
  assert.equal(age.maximum, 150);
  assert.equal((age['x-turn-checks'] as { name: string }[])[0].name, 'even');
});

test('validateValue: a check deep in a recursive struct ($defs) and in a list of structs is run; a schema without checks passes as before', async () => {
  const deep = await schemaOf('Deep');
  const leaf = (label: string, n: number) => ({ label, kids: [], rated: [{ n }] });
  assert.deepEqual(validateValue(deep, { label: 'a', kids: [leaf('b', 2), { label: 'c', kids: [leaf('d', 4)], rated: [] }], rated: [] }), []);
  assert.deepEqual(validateValue(deep, { label: 'a', kids: [leaf('b', 2), { label: 'c', kids: [leaf('d', 5)], rated: [] }], rated: [] }, { prefix: '/value' }), [
    { path: '/value/kids/1/kids/0/rated/0/n', message: 'must be even (check `even`)' },
  ]);
  const tree = await schemaOf('Tree');
  assert.deepEqual(validateValue(tree, { value: 1, children: [{ value: 3, children: [] }] }), []);
  assert.deepEqual(validateValue(tree, { value: 1, children: [{ value: 'x', children: [] }] }), [{ path: '/children/0/value', message: 'must be a number' }]);
});

test('schema: a struct union is anyOf with const discriminators; a recursive struct is $defs/$ref; Map<Str, T> is additionalProperties', async () => {
  const d = await schemaOf('Decision');
  const members = d.anyOf as Record<string, Record<string, Record<string, unknown>>>[];
  assert.deepEqual(members.map((m) => m.title), ['Approve', 'Reject']);
  assert.deepEqual(members[0].properties.kind, { type: 'string', const: 'approve' });
  const t = await schemaOf('Tree');
  assert.equal(t.$ref, '#/$defs/Tree');
  const tree = (t.$defs as Record<string, Record<string, Record<string, Record<string, unknown>>>>).Tree;
  assert.deepEqual(tree.properties.children.items, { $ref: '#/$defs/Tree' });
  assert.deepEqual(await schemaOf('Map<Str, Num>'), { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: { type: 'number' } });
  assert.deepEqual((await schemaOf('"yes" | 3 | null')).anyOf, [{ type: 'string', const: 'yes' }, { type: 'number', const: 3 }, { type: 'null' }]);
  // a union of string literals keeps its old meaning: a string enum
  assert.deepEqual(await schemaOf('"low" | "high"'), { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', enum: ['low', 'high'] });
});

test('validateValue: JSON pointers, check failures, predicate failures and union failures in words', async () => {
  const c = await schemaOf('Contact');
  assert.deepEqual(validateValue(c, { name: 'Ann', tags: [] }), [], 'optional fields may be absent');
  assert.deepEqual(validateValue(c, { name: 'Ann', email: null, age: null, tags: [] }), [], 'or null');
  assert.deepEqual(validateValue(c, { name: '', email: 'nope', age: 200, tags: ['a', 'b', 'c', 'd', 'e', 'f'] }, { prefix: '/value' }), [
    { path: '/value/name', message: 'must have at least 1 character' },
    { path: '/value/email', message: 'must match the pattern "^[^@ ]+@[^@ ]+$"' },
    { path: '/value/age', message: 'must be <= 150' },
    { path: '/value/tags', message: 'must have at most 5 items' },
  ]);
  assert.deepEqual(validateValue(c, { name: 'Ann', age: 33, tags: [] }, { prefix: '/value' }), [{ path: '/value/age', message: 'must be even (check `even`)' }]);
  const d = await schemaOf('Decision');
  assert.deepEqual(validateValue(d, { kind: 'approve' }), [
    { path: '', message: 'must be one of: Approve (kind: "approve"), Reject (kind: "reject"); as Approve (kind: "approve"):' },
    { path: '', message: 'must have the property "amount"' },
  ]);
  assert.deepEqual(validateValue(d, { kind: 'maybe' }), [{ path: '', message: 'must be one of: Approve (kind: "approve"), Reject (kind: "reject"); its "kind" is "maybe", which names none of them' }]);
  const t = await schemaOf('Tree');
  assert.deepEqual(validateValue(t, { value: 1, children: [{ value: 2, children: [{ value: 'x', children: [] }] }] }), [
    { path: '/children/0/children/0/value', message: 'must be a number' },
  ]);
});

test('fromReply: a union value is the struct of its member; an absent optional field is null', async () => {
  const d = await schemaOf('Decision');
  const v = fromReply({ kind: 'reject', reason: 'no' }, d) as StructVal;
  assert.ok(v instanceof StructVal);
  assert.equal(v.type, 'Reject');
  const c = fromReply({ name: 'Ann', tags: [] }, await schemaOf('Contact')) as StructVal;
  assert.equal(c.fields.get('email'), null);
  assert.deepEqual([...c.fields.keys()], ['name', 'email', 'age', 'tags']);
});

test('mock: every seed gives a conforming value; seeds vary the union member and whether an optional is there', async () => {
  for (const type of ['Contact', 'Decision', 'Tree', 'Map<Str, Num>', 'List<Decision?>', '"yes" | 3 | true']) {
    const s = await schemaOf(type);
    for (let seed = 0; seed < 40; seed++) assert.deepEqual(validateValue(s, mockValue(s, seed)), [], `${type} at seed ${seed}: ${JSON.stringify(mockValue(s, seed))}`);
  }
  const d = await schemaOf('Decision');
  const kinds = new Set(Array.from({ length: 40 }, (_, seed) => (mockValue(d, seed) as { kind: string }).kind));
  assert.deepEqual([...kinds].sort(), ['approve', 'reject']);
  const c = await schemaOf('Contact');
  const emails = new Set(Array.from({ length: 40 }, (_, seed) => 'email' in (mockValue(c, seed) as object)));
  assert.deepEqual([...emails].sort(), [false, true]);
  assert.ok('email' in (mockValue(c, 0) as object), 'seed 0 fills every field');
});

test('infer with the mock model: an optional field, a union decision, a recursive tree and a checked field bind', async () => {
  const r = await runWith(
    `${TYPES}
let c = infer Contact { "Ann, no email"; };
let d = infer Decision { "decide"; };
let t = infer Tree { "a tree"; };
let n = Contact { name: "x", tags: [] };
let amount = null;
if d.kind == "approve" { amount = d.amount; }
return [c.name, c.age, call("type_of", d), d.kind, t.children[0].value, n.email, call("type_of", t.children[0])];`.replace('amount = d.amount;', 'let amount = d.amount;'),
    mock(),
  );
  assert.deepEqual(okJson(r), ['mock', 0, 'Approve', 'approve', 1, null, 'Tree']);
});

test('script: each check is violated first, then met, with one re-ask each that carries the error', async () => {
  const program = `${TYPES}
let c = infer Contact { "contact"; };
return [c.name, c.email, c.age, c.tags];`;
  const ok = { name: 'Ann', email: 'ann@example.com', age: 30, tags: ['a'] };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...ok, name: '' }, '/value/name: must have at least 1 character'],
    [{ ...ok, email: 'not an email' }, '/value/email: must match the pattern "^[^@ ]+@[^@ ]+$"'],
    [{ ...ok, age: 151 }, '/value/age: must be <= 150'],
    [{ ...ok, age: 31 }, '/value/age: must be even (check `even`)'],
    [{ ...ok, tags: ['1', '2', '3', '4', '5', '6'] }, '/value/tags: must have at most 5 items'],
  ];
  for (const [bad, error] of cases) {
    const r = await runWith(program, script([{ value: bad, confidence: 0.5 }, { value: ok, confidence: 0.8 }]));
    assert.deepEqual(okJson(r), ['Ann', 'ann@example.com', 30, ['a']], error);
    assert.equal(r.requests.length, 2, `one re-ask for ${error}`);
    assert.equal(r.requests[1].feedback.length, 1);
    assert.deepEqual(r.requests[1].feedback[0].issues.map((i) => `${i.path}: ${i.message}`), [error]);
    const retry = r.events.find((e) => e.kind === 'infer.request' && e.attempt === 2) as unknown as { feedback: string[] };
    assert.match(retry.feedback[0], new RegExp(error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  }
  // A union decision that is neither member fails with the members named.
  const d = await runWith(`${TYPES}\ntry { return infer Decision { "d"; }; } catch (e) { return e["message"]; }`, script([{ value: { kind: 'maybe' }, repeat: true }]));
  assert.match(String(okJson(d)), /must be one of: Approve \(kind: "approve"\), Reject \(kind: "reject"\)/);
});

test('the checker refuses a misused check, and an impure predicate, where the struct is declared', async () => {
  const r = await checkSource('a.tn', 'struct S {\n  n: Str @range(1, 2),\n  m: Num @check("p", turn(v) { return infer Bool { "?"; }; }),\n  k: List<Num> @length(1, 2) @min_items(1),\n}\n');
  assert.deepEqual(r.diagnostics.map((d) => formatDiagnostic(r.file, d)), [
    'a.tn:2:10: n: `@range` applies to a Num field, not a Str',
    'a.tn:3:39: a check predicate is pure: it cannot use `infer`',
  ]);
});

test('strictSchema: every property required, optional as nullable, const as enum, refused keywords dropped', async () => {
  const wire = wireSchema(await schemaOf('Contact'));
  const s = strictSchema(wire);
  assert.ok(s.ok);
  const value = (s.schema.properties as Record<string, Record<string, unknown>>).value;
  assert.deepEqual(value.required, ['name', 'email', 'age', 'tags']);
  assert.equal(value.additionalProperties, false);
  assert.deepEqual((value.properties as Record<string, unknown>).name, { type: 'string', description: 'Full name as written in the text.' });
  assert.deepEqual(s.dropped, ['maxLength', 'minLength']);
  assert.ok(!JSON.stringify(s.schema).includes('x-turn-checks'), 'predicates never leave');
  const decision = strictSchema(wireSchema(await schemaOf('Decision')));
  assert.ok(decision.ok);
  assert.match(JSON.stringify(decision.schema), /"kind":\{"type":"string","enum":\["approve"\]\}/);
  const tree = strictSchema(wireSchema(await schemaOf('Tree')));
  assert.ok(tree.ok);
  assert.ok((tree.schema.$defs as Record<string, unknown>).Tree, '$defs stay at the root');
  // a schema that is not an object at the root is wrapped
  const wrapped = strictSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] });
  assert.ok(wrapped.ok);
  assert.deepEqual(wrapped.schema, { type: 'object', properties: { value: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, required: ['value'], additionalProperties: false });
  // what strict mode cannot state at all
  const map = strictSchema(wireSchema(await schemaOf('Map<Str, Num>')));
  assert.equal(map.ok, false);
  // a non-required property that is not nullable is made nullable
  const absorbed = strictSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] });
  assert.ok(absorbed.ok);
  assert.deepEqual(absorbed.schema.properties, { a: { type: 'string' }, b: { anyOf: [{ type: 'number' }, { type: 'null' }] } });
  assert.deepEqual(absorbed.schema.required, ['a', 'b']);
});

const servers: FakeServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

test('openai strict: the downgraded schema on the wire, the full schema enforced locally', async () => {
  process.env.TURN_TYPES_TEST_KEY = 'sk-types';
  // strict mode would let a 1-character-short name through (minLength is dropped on the wire): the local check re-asks
  const first = JSON.stringify({ value: { name: '', email: null, age: null, tags: [] }, confidence: 0.5 });
  const second = JSON.stringify({ value: { name: 'Ann', email: null, age: null, tags: [] }, confidence: 0.9 });
  const s = await fakeServer([{ status: 200, body: openaiCompletion(first) }, { status: 200, body: openaiCompletion(second) }]);
  servers.push(s);
  const model = createModel(`openai:gpt-test?base_url=${s.url}/v1&api_key_env=TURN_TYPES_TEST_KEY`);
  const r = await runWith(`${TYPES}\nlet c = infer Contact { "c"; };\nreturn [c.name, c.email];`, (req, io) => model.infer(req, io));
  assert.deepEqual(okJson(r), ['Ann', null]);
  assert.equal(s.received.length, 2);
  const js = (s.received[0].json as { response_format: { json_schema: { strict: boolean; schema: Record<string, unknown> } } }).response_format.json_schema;
  assert.equal(js.strict, true);
  const expected = strictSchema(wireSchema(r.requests[0].schema));
  assert.ok(expected.ok);
  assert.deepEqual(js.schema, JSON.parse(JSON.stringify(expected.schema)));
  const value = (js.schema.properties as Record<string, Record<string, unknown>>).value;
  assert.deepEqual(value.required, ['name', 'email', 'age', 'tags'], 'every property is required on the wire');
  assert.ok(!JSON.stringify(js.schema).includes('minLength'));
  assert.deepEqual(r.requests[1].feedback[0].issues, [{ path: '/value/name', message: 'must have at least 1 character' }]);
  // and a reply that omits an optional field still binds (the full schema allows it)
  const failed = failure(await runWith(`${TYPES}\nlet c = infer Contact { "c"; };`, script([{ value: { name: 'x' }, repeat: true }])));
  assert.match(failed.message, /\/value: must have the property "tags"/);
});

test('repair: a left-out discriminator is filled in where only one member fits, and recorded', async () => {
  const r = await runWith(`${TYPES}\nlet d = infer Decision { "d"; };\nreturn [call("type_of", d), d.kind];`, script([{ value: { reason: 'too dear' } }]));
  assert.deepEqual(okJson(r), ['Reject', 'reject']);
  const reply = r.events.find((e) => e.kind === 'infer.reply') as unknown as { repairs: string[]; valid: boolean };
  assert.equal(reply.valid, true);
  assert.deepEqual(reply.repairs, ['filled in the literal field /value/kind: "reject"']);
  // both members would fit: nothing is guessed, the validator names the members
  const both = await runWith(`struct A { kind: "a" }\nstruct B { kind: "b" }\ntry { return infer A | B { "x"; }; } catch (e) { return e["errors"][0]["message"]; }`, script([{ value: {}, repeat: true }]));
  assert.equal(okJson(both), 'must be one of: A (kind: "a"), B (kind: "b")');
});
