import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSource } from '../../runtime/syntax/parse.js';
import { SourceFile } from '../../runtime/syntax/source.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';
import type * as A from '../../runtime/syntax/ast.js';

async function parseOk(text: string): Promise<A.Program> {
  const r = await parseSource('t.tn', text);
  assert.deepEqual(r.diagnostics, [], 'expected no syntax errors');
  return r.program;
}

function firstExpr(program: A.Program): A.Expr {
  const s = program.body[0];
  if (s.kind === 'Let') return s.value;
  if (s.kind === 'ExprStmt') return s.expr;
  throw new Error('no expression in ' + s.kind);
}

test('binary operators follow Turn precedence and associativity', async () => {
  const e = firstExpr(await parseOk('a or b and c == d < e + f * g - h;')) as A.Binary;
  assert.equal(e.op, 'or');
  const and = e.right as A.Binary;
  assert.equal(and.op, 'and');
  const eq = and.right as A.Binary;
  assert.equal(eq.op, '==');
  const lt = eq.right as A.Binary;
  assert.equal(lt.op, '<');
  const minus = lt.right as A.Binary;
  assert.equal(minus.op, '-', 'left-associative: (e + f*g) - h');
  assert.equal((minus.left as A.Binary).op, '+');
  assert.equal(((minus.left as A.Binary).right as A.Binary).op, '*');
});

test('a struct literal is told apart from the block after a condition', async () => {
  const p = await parseOk('if ready { call("echo", Point { x: 1, ..p }); }');
  const s = p.body[0] as A.IfStmt;
  assert.equal(s.kind, 'If');
  assert.deepEqual(s.condition, { kind: 'Identifier', name: 'ready', span: { start: 3, end: 8 } });
  const call = (s.then.body[0] as A.ExprStmt).expr as A.CallBuiltin;
  const lit = call.args[0] as A.StructLit;
  assert.equal(lit.kind, 'StructLit');
  assert.equal(lit.fields[0].name.name, 'x');
  assert.equal((lit.spread as A.Identifier).name, 'p');
});

test('strings decode escapes, including \\u{...}', async () => {
  const e = firstExpr(await parseOk('"a\\"b\\n\\t\\\\\\u{1F600}\\u00e9";')) as A.StringLit;
  assert.equal(e.value, 'a"b\n\t\\😀é');
});

test('agent constructs lower to their own nodes', async () => {
  const p = await parseOk(`
    let v = infer List<Verdict> { "rate it"; };
    let c = confidence (v + 1);
    let k = spawn_link turn() { return receive; };
    let ps = spawn_each([1], turn(n: Num) -> Num { return n; });
    let r = gather ps;
    send k, "hi";
    remember("a", 1);
    let x = recall("a");
    context.system("be brief");
    let m = use "./lib.tn";
    let g = grant identity::bearer("gh");
  `);
  const kinds = p.body.map((s) => (s.kind === 'Let' ? s.value.kind : s.kind === 'ExprStmt' ? s.expr.kind : s.kind));
  assert.deepEqual(kinds, ['Infer', 'Confidence', 'Spawn', 'SpawnEach', 'Gather', 'Send', 'Remember', 'Recall', 'Context', 'Use', 'Grant']);
  const infer = (p.body[0] as A.LetStmt).value as A.InferExpr;
  assert.deepEqual(
    { name: (infer.type as A.NamedType).name, arg: ((infer.type as A.NamedType).args[0] as A.NamedType).name },
    { name: 'List', arg: 'Verdict' },
  );
  assert.equal(((p.body[2] as A.LetStmt).value as A.SpawnExpr).link, true);
});

test('a missing expression is reported at its line and column', async () => {
  const r = await parseSource('bad.tn', 'call("echo", 1);\nlet y = ;\n');
  assert.equal(r.diagnostics.length, 1);
  assert.equal(formatDiagnostic(r.file, r.diagnostics[0]), 'bad.tn:2:9: syntax error: expected an expression, found `;`');
});

test('columns count characters after multi-byte text (é, 語, emoji)', async () => {
  const r = await parseSource('u.tn', 'let s = "é語😀"; let t = ;');
  assert.equal(r.diagnostics.length, 1);
  // `let s = "é語😀"; let t = ` is 23 code points (26 UTF-16 units); the `;` found instead is column 24.
  assert.equal(formatDiagnostic(r.file, r.diagnostics[0]), 'u.tn:1:24: syntax error: expected an expression, found `;`');
});

test('an unexpected token is named in the message', async () => {
  const r = await parseSource('x.tn', 'let a = 1;\nlet b = );\n');
  assert.ok(r.diagnostics.length >= 1);
  const text = formatDiagnostic(r.file, r.diagnostics[0]);
  assert.match(text, /^x\.tn:2:\d+: syntax error: unexpected `\)`$/);
});

test('deep nesting is reported, not a stack overflow', async () => {
  const depth = 5000;
  const r = await parseSource('deep.tn', 'let x = ' + '('.repeat(depth) + '1' + ')'.repeat(depth) + ';');
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0].code, 'nesting');
  assert.match(r.diagnostics[0].message, /nesting too deep/);
});

test('SourceFile converts between offsets, code-point columns and UTF-16 positions', () => {
  const f = new SourceFile('f.tn', 'a😀b\n語x');
  assert.deepEqual(f.position(3), { line: 1, column: 3 }, 'after the emoji (2 UTF-16 units) comes column 3');
  assert.deepEqual(f.utf16Position(3), { line: 0, character: 3 });
  assert.deepEqual(f.position(5), { line: 2, column: 1 });
  assert.deepEqual(f.position(6), { line: 2, column: 2 });
  assert.equal(f.offsetAt(1, 1), 6);
  for (let offset = 0; offset <= f.text.length; offset++) {
    const p = f.utf16Position(offset);
    assert.equal(f.offsetAt(p.line, p.character), offset, `round trip at ${offset}`);
  }
});
