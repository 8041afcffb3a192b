import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSource } from '../../runtime/syntax/parse.js';
import { forEachChild, isStatement, walk, type ChildRole } from '../../runtime/syntax/walk.js';
import type * as A from '../../runtime/syntax/ast.js';

/** Every node kind of ast.ts: a kind missing here (or one that no longer exists) is a type error. */
const ALL_KINDS: Record<A.Node['kind'], true> = {
  Program: true, Block: true,
  Let: true, ExprStmt: true, Return: true, If: true, While: true, Try: true, Throw: true, Struct: true, FieldDecl: true,
  Impl: true, TypeAlias: true, Entry: true, Suspend: true,
  Number: true, String: true, Bool: true, Null: true, Identifier: true, List: true, Map: true, StructLit: true, Vec: true,
  Closure: true, Binary: true, Unary: true, Index: true, Member: true, MethodCall: true, Call: true, CallBuiltin: true,
  ListOp: true, Use: true, UseSchema: true, Grant: true, Infer: true, Confidence: true, Spawn: true, SpawnEach: true,
  Gather: true, Receive: true, Send: true, Remember: true, Recall: true, Context: true, Invoke: true, Scope: true,
  Task: true, Detach: true,
  NamedType: true, FunctionType: true, EnumType: true, OptionalType: true, UnionType: true, LiteralType: true,
  FieldCheck: true,
};

/** A program that uses every node kind of the grammar. */
const EVERYTHING = `
struct Box<T> { value: T, label: Str }
/// A checked struct.
struct Checked { n: Num? @range(0, 9) @check("small", turn(v) { return v < 5; }), u: Num | (Str | null)?, k: 3 }
type Pick = "a" | "b";
type Fn = (Num, List<Str>) -> Bool;
impl Box {
  let show = turn() -> Str { return label; };
}
let lib = use "std/fs";
let api = use schema::openapi("spec.json");
let key = grant identity::api_key("svc");
let b = Box { value: 1, label: "x" };
let c = Box { label: "y", ..b };
let f = turn(x: Num, y) -> Num { return -x + y * 2; };
let items = [1, 2.5, true, false, null];
let m = { "k": vec [1, 2], "n": !true };
if items[0] < 2 { let u = f(1, 2); } else if b.value == 1 { b.show(); } else { call("echo", 1); }
while false { suspend; }
try { throw "e"; } catch (err) { map(items, f); filter(items, f); }
turn {
  let answer = infer Pick { "choose"; };
  let sure = confidence answer;
  let p = spawn turn() { send p, receive(10); };
  let q = spawn_link turn() { receive; };
  let ps = spawn_each(items, turn(i) { return i; });
  let all = gather ps;
  remember("k", 1);
  let r = recall("k");
  context.append("x");
  context.system("y");
  let v = invoke f(1, 2);
  let s = scope wait_all { task turn() { return 1; }; };
  let d = detach turn() { return 2; };
}
`;

/** The old reflective walk: every object with a `kind` reachable through any property. */
function reflectiveNodes(root: unknown): Set<object> {
  const out = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const current = stack.pop();
    if (!current || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      stack.push(...(current as unknown[]));
      continue;
    }
    if ('kind' in current) out.add(current);
    for (const [key, value] of Object.entries(current)) if (key !== 'span') stack.push(value);
  }
  return out;
}

test('forEachChild reaches every node of a program that uses every node kind, in source order', async () => {
  const { program, diagnostics } = await parseSource('everything.tn', EVERYTHING);
  assert.deepEqual(diagnostics, [], 'the sample program parses');

  const seen: A.Node[] = [];
  walk(program, (n) => {
    seen.push(n);
    // Direct children come in source order, inside their parent.
    let last = n.span.start;
    forEachChild(n, (c) => {
      assert.ok(c.span.start >= last, `${c.kind} under ${n.kind} starts before its previous sibling`);
      assert.ok(c.span.start >= n.span.start && c.span.end <= n.span.end, `${c.kind} lies outside its parent ${n.kind}`);
      last = c.span.start;
    });
  });

  // The same nodes as a reflective walk over every property, each visited once.
  const reachable = reflectiveNodes(program);
  assert.equal(new Set(seen).size, seen.length, 'no node is visited twice');
  assert.deepEqual(new Set(seen), reachable);

  // And the sample exercises every kind.
  const kinds = new Set(seen.map((n) => n.kind));
  assert.deepEqual([...kinds].sort(), Object.keys(ALL_KINDS).sort());
});

test('forEachChild tells names, types and declarations from code', async () => {
  const { program } = await parseSource('roles.tn', 'let a: Num = b.c; struct S { f: Num }');
  const roles: [string, ChildRole][] = [];
  walk(program, (n, role) => {
    roles.push([n.kind === 'Identifier' ? `Identifier ${n.name}` : n.kind, role]);
  });
  assert.deepEqual(roles, [
    ['Program', 'code'],
    ['Let', 'code'],
    ['Identifier a', 'name'],
    ['NamedType', 'type'],
    ['Member', 'code'],
    ['Identifier b', 'code'],
    ['Identifier c', 'name'],
    ['Struct', 'code'],
    ['Identifier S', 'name'],
    ['FieldDecl', 'decl'],
    ['Identifier f', 'name'],
    ['NamedType', 'type'],
  ]);
  assert.ok(isStatement(program.body[0]));
  assert.ok(!isStatement((program.body[0] as A.LetStmt).value));
});

test('walk skips the children of a node its visitor returns false for', async () => {
  const { program } = await parseSource('skip.tn', 'let f = turn() { let inner = 1; }; let outer = 2;');
  const lets: string[] = [];
  walk(program, (n) => {
    if (n.kind === 'Closure') return false;
    if (n.kind === 'Let') lets.push(n.name.name);
  });
  assert.deepEqual(lets, ['f', 'outer']);
});

test('walk handles a 100,000-deep expression without overflowing the stack', () => {
  const depth = 100_000;
  const span = { start: 0, end: 0 };
  let e: A.Expr = { kind: 'Number', value: 1, span };
  for (let i = 0; i < depth; i++) {
    e = i % 2 ? { kind: 'Unary', op: '-', operand: e, span } : { kind: 'Binary', op: '+', left: e, right: { kind: 'Identifier', name: 'x', span }, span };
  }
  const program: A.Program = { kind: 'Program', body: [{ kind: 'ExprStmt', expr: e, span }], span };
  let count = 0;
  let numbers = 0;
  let identifiers = 0;
  walk(program, (n) => {
    count++;
    if (n.kind === 'Number') numbers++;
    if (n.kind === 'Identifier') identifiers++;
  });
  // Program, ExprStmt, the 100,000 operators, the innermost number and the Binary nodes' right operands.
  assert.equal(numbers, 1);
  assert.equal(identifiers, depth / 2);
  assert.equal(count, 2 + depth + 1 + depth / 2);
});
