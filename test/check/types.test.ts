// Issue 23 in the checker: omitted optional fields, narrowing in `if` (null tests, discriminator
// tests, `type_of` tests), fields of unions, reads through an optional struct, assignability of the
// new types, and lowering of the new syntax.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';
import { parseSource } from '../../runtime/syntax/parse.js';
import { isAssignable, resolveType, typeToString, unionOf, type StaticType } from '../../runtime/check/types.js';

async function messages(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d));
}

const DECL = `struct Contact { name: Str, email: Str? }
struct Approve { kind: "approve", amount: Num }
struct Reject { kind: "reject", reason: Str }
`;

test('a struct literal may omit a T? field, never a required one', async () => {
  assert.deepEqual(await messages(`${DECL}let c = Contact { name: "a" };`), []);
  assert.deepEqual(await messages(`${DECL}let c = Contact { email: "a" };`), ['a.tn:4:9: missing field `name` in Contact']);
  assert.deepEqual(await messages('struct Box<T> { item: T?, label: Str }\nlet b = Box { label: "l" };'), [], 'a generic T? field too');
});

test('a string given for a literal-typed field must be that literal', async () => {
  assert.deepEqual(await messages(`${DECL}let a = Approve { kind: "approve", amount: 1 };`), []);
  assert.deepEqual(await messages(`${DECL}let a = Approve { kind: "aprove", amount: 1 };`), ['a.tn:4:25: type mismatch: field `kind` of Approve is "approve", got "aprove"']);
});

test('a union member-only field needs narrowing: by discriminator, by type_of; unknown fields are reported', async () => {
  const prelude = `${DECL}let d = infer Approve | Reject { "decide"; };\n`;
  assert.deepEqual(await messages(`${prelude}let k = d.kind;`), [], 'a field of every member reads without narrowing');
  assert.deepEqual(await messages(`${prelude}let a = d.amount;`), [
    'a.tn:5:11: `amount` is a field of Approve only, not of Reject: narrow `d` first, e.g. `if d.kind == "approve" { ... }`',
  ]);
  assert.deepEqual(await messages(`${prelude}if d.kind == "approve" { let a: Num = d.amount; } else { let r: Str = d.reason; }`), []);
  assert.deepEqual(await messages(`${prelude}if d.kind == "approve" { let r = d.reason; }`), ['a.tn:5:36: Approve has no field `reason`']);
  assert.deepEqual(await messages(`${prelude}if call("type_of", d) == "Reject" { let r = d.reason; }`), []);
  assert.deepEqual(await messages(`${prelude}if d.kind != "approve" { let r = d.reason; }`), []);
  assert.deepEqual(await messages(`${prelude}let z = d.nothing;`), ['a.tn:5:11: no member of Approve | Reject has a field `nothing`']);
  assert.deepEqual(await messages(`${prelude}let f = turn() { if d.kind == "approve" { return turn() { return d.amount; }; } };`), [
    'a.tn:5:68: `amount` is a field of Approve only, not of Reject: narrow `d` first, e.g. `if d.kind == "approve" { ... }`',
  ], 'a closure does not inherit what an enclosing if proved');
});

test('T? narrows to T after a null test; a field read through a possibly-null struct is reported', async () => {
  const prelude = `${DECL}let c: Contact? = null;\n`;
  assert.deepEqual(await messages(`${prelude}let n = c.name;`), ['a.tn:5:11: `c` may be null (Contact?): test it first, e.g. `if c != null { ... }`']);
  assert.deepEqual(await messages(`${prelude}if c != null { let n: Str = c.name; }`), []);
  assert.deepEqual(await messages(`${prelude}if c == null { let x = 1; } else { let n = c.name; }`), []);
  assert.deepEqual(await messages(`${prelude}if c != null and c.email != null { let e: Str = c.email; }`), []);
});

test('check annotations are checked where the struct is declared', async () => {
  assert.deepEqual(await messages('struct S { a: Str @pattern("(") }'), ['a.tn:1:19: a: `@pattern`: the pattern "(" is not a regular expression Turn can run: missing closing ): `(`']);
  assert.deepEqual(await messages('struct S { a: Num @length(1, 2) }'), ['a.tn:1:19: a: `@length` applies to a Str or a List field, not a Num']);
  assert.deepEqual(await messages('struct S { a: Num @range(5, 1) }'), ['a.tn:1:19: a: `@range(N, N)`: the lower bound 5 is above the upper bound 1']);
  assert.deepEqual(await messages('struct S { a: Num? @range(0, 1) @multiple_of(0.5), b: List<Str> @length(0, 3), c: Str @length(1, 9) }'), []);
});

test('assignability: optionals, unions, literals and typed maps', async () => {
  const { program } = await parseSource('t.tn', 'let a: Str? = 1;\nlet b: "yes" | 3 = 1;\nlet c: Map<Str, Num> = 1;\nlet d: Str | Num? = 1;\nlet e: Str | null = 1;');
  const types = program.body.map((s) => (s.kind === 'Let' && s.type ? resolveType(s.type, { lookupNamed: () => undefined }) : undefined)) as StaticType[];
  assert.deepEqual(types.map(typeToString), ['Str?', '"yes" | 3', 'Map<Str, Num>', '(Str | Num)?', 'Str?']);
  const [optStr, lit, map] = types;
  assert.ok(isAssignable({ kind: 'Str' }, optStr));
  assert.ok(!isAssignable({ kind: 'Num' }, optStr));
  assert.ok(isAssignable({ kind: 'Literal', value: 3 }, lit));
  assert.ok(!isAssignable({ kind: 'Literal', value: 4 }, lit));
  assert.ok(!isAssignable({ kind: 'Bool' }, lit));
  assert.ok(isAssignable({ kind: 'Map', value: { kind: 'Num' } }, map));
  assert.ok(!isAssignable({ kind: 'Map', value: { kind: 'Str' } }, map));
  assert.ok(isAssignable(unionOf([{ kind: 'Literal', value: 'a' }, { kind: 'Literal', value: 'b' }]), { kind: 'Str' }), 'a union flows where all its members do');
  assert.deepEqual(await messages('let x: Num? = "a";'), ['a.tn:1:15: type mismatch: `x` is declared Num?, got Str']);
  assert.deepEqual(await messages('let x: Str | Num = true;'), ['a.tn:1:20: type mismatch: `x` is declared Str | Num, got Bool']);
});

test('lowering: T?, unions, literals, parentheses, /// descriptions and checks; string-only unions stay enums', async () => {
  const { program, diagnostics } = await parseSource('t.tn', `/// A thing.
/// Two lines.
struct S {
  /// The a.
  a: Str? @length(1, 2),
  // not a description
  b: "x" | -2 | true,
  c: ("p" | "q")?,
  //// not one either
  d: Num,
}
let e: "low" | "high" = "low";`);
  assert.deepEqual(diagnostics, []);
  const s = program.body[0];
  assert.ok(s.kind === 'Struct');
  assert.equal(s.description, 'A thing.\nTwo lines.');
  assert.deepEqual(s.fields.map((f) => f.description), ['The a.', undefined, undefined, undefined]);
  assert.equal(s.fields[0].type.kind, 'OptionalType');
  assert.deepEqual(s.fields[0].checks.map((c) => [c.name.name, c.args.map((a) => (a.kind === 'Number' ? a.value : a.kind))]), [['length', [1, 2]]]);
  const b = s.fields[1].type;
  assert.ok(b.kind === 'UnionType');
  assert.deepEqual(b.members.map((m) => (m.kind === 'LiteralType' ? m.value : m.kind)), ['x', -2, true]);
  const c = s.fields[2].type;
  assert.ok(c.kind === 'OptionalType' && c.inner.kind === 'EnumType');
  const e = program.body[1];
  assert.ok(e.kind === 'Let' && e.type?.kind === 'EnumType');
  assert.deepEqual(e.type.values, ['low', 'high']);
});
