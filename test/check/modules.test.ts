// Programs of many files, checked by `turn check` (and run by `turn run`) as a user would: calls,
// fields and constructions across files are typed from the used module's exports, structs are
// shared by name, bare module names resolve through turn.json, and module cycles, broken modules
// and unreadable ones are located errors in the files that use them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JS_STACK, turn } from '../cli/run-cli.js';
import { ModuleGraph, type ModuleSource } from '../../runtime/check/modules.js';
import { SourceFile } from '../../runtime/syntax/source.js';
import type { Program, UseExpr } from '../../runtime/syntax/ast.js';

/** Writes `files` (relative path → text) into a fresh folder and returns it. */
function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-modules-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function check(dir: string, file = 'main.tn'): { code: number | null; lines: string[]; stderr: string } {
  const r = turn(['check', file], { cwd: dir });
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  return { code: r.code, lines: (r.stdout + r.stderr).split('\n').filter((l) => l.trim() !== ''), stderr: r.stderr };
}

// Three modules: money (a struct and closures over it), ledger (uses money's struct in its own
// signatures), main (builds money's struct and hands it to both).
const MONEY = [
  'struct Money { cents: Num, currency: "EUR" | "USD" };',
  'let fmt = turn(m: Money) -> Str { return m.currency + " " + m.cents; };',
  'let add = turn(a: Money, b: Money) -> Money { return Money { cents: a.cents + b.cents, currency: a.currency }; };',
  'return {"fmt": fmt, "add": add, "zero": Money { cents: 0, currency: "EUR" }, "name": "money"};',
].join('\n');
const LEDGER = [
  'let money = use "./money";',
  'struct Entry { what: Str, amount: Money };',
  'let total = turn(entries: List<Entry>) -> Money {',
  '    let sum = money.zero;',
  '    let i = 0;',
  '    while i < call("len", entries) { let sum = money.add(sum, entries[i].amount); let i = i + 1; }',
  '    return sum;',
  '};',
  'return {"total": total};',
].join('\n');
const MAIN = [
  'let money = use "./money";',
  'let ledger = use "./ledger";',
  'let coffee = Money { cents: 250, currency: "EUR" };',
  'let entries = [Entry { what: "coffee", amount: coffee }, Entry { what: "cake", amount: money.add(coffee, coffee) }];',
  'call("echo", money.fmt(ledger.total(entries)));',
].join('\n');

test('three modules sharing a struct: checked clean, and the struct built in one file is the one the others take', () => {
  const dir = project({ 'money.tn': MONEY, 'ledger.tn': LEDGER, 'main.tn': MAIN });
  const c = check(dir);
  assert.deepEqual(c.lines, []);
  assert.equal(c.code, 0);
  const r = turn(['run', 'main.tn'], { cwd: dir });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, 'EUR 750\n');
});

test('a wrong call into a module is a located error in the calling file', () => {
  const dir = project({ 'money.tn': MONEY, 'main.tn': 'let money = use "./money";\ncall("echo", money.fmt(5));\n' });
  const c = check(dir);
  assert.equal(c.code, 2);
  assert.deepEqual(c.lines, ['main.tn:2:24: type mismatch: parameter `m` of `fmt` is Money, got Num']);
});

test('a call with the wrong number of arguments, and a value called as a closure; standard modules stay untyped', () => {
  // std/net's functions also take Turn v1's single map (`net.get({"url": u, ...})`): they are not checked
  const main = 'let money = use "./money";\nmoney.add(money.zero);\nmoney.name(1);\nlet json = use "std/json";\ncall("echo", json.get({"a": 1}, ["a"]));\nlet net = use "std/net";\nlet f = turn() { return net.get({"url": "http://x"}); };\n';
  const dir = project({ 'money.tn': MONEY, 'main.tn': main });
  assert.deepEqual(check(dir).lines, [
    'main.tn:2:1: `add` takes 2 arguments, got 1',
    'main.tn:3:7: `name` of module `./money` is a Str, not a closure',
  ]);
});

test('a member the module does not export, with what it does export', () => {
  const dir = project({ 'money.tn': MONEY, 'main.tn': 'let money = use "./money";\nmoney.fmtt(money.zero);\nlet z = money.zeroo;\n' });
  assert.deepEqual(check(dir).lines, [
    'main.tn:2:7: module `./money` has no member `fmtt` (did you mean `fmt`?) (it exports fmt, add, zero, name)',
    'main.tn:3:15: module `./money` has no member `zeroo` (did you mean `zero`?) (it exports fmt, add, zero, name)',
  ]);
});

test('a member renamed in the module is an error in every file still using the old name', () => {
  const renamed = MONEY.replace('"fmt": fmt', '"format": fmt');
  const dir = project({ 'money.tn': renamed, 'ledger.tn': LEDGER, 'main.tn': MAIN });
  assert.deepEqual(check(dir).lines, ['main.tn:5:20: module `./money` has no member `fmt` (it exports format, add, zero, name)']);
});

test("a module's struct is checked in the using file: fields, construction, and field types", () => {
  const dir = project({
    'money.tn': MONEY,
    'main.tn': ['let money = use "./money";', 'let a = Money { cents: "5", currency: "EUR" };', 'let b = Money { cents: 5 };', 'call("echo", money.zero.centz);'].join('\n'),
  });
  assert.deepEqual(check(dir).lines, [
    'main.tn:2:24: type mismatch: field `cents` of Money is Num, got Str',
    'main.tn:3:9: missing field `currency` in Money',
    'main.tn:4:25: Money has no field `centz` (did you mean `cents`?)',
  ]);
});

test("a module's struct keeps its methods in the files that use it, at check time and at run time", () => {
  const dir = project({
    'money.tn': 'struct Money { cents: Num };\nimpl Money { let show = turn(suffix: Str) -> Str { return "" + cents + suffix; }; }\nreturn {"one": Money { cents: 1 }};\n',
    'main.tn': 'let money = use "./money";\nlet m = Money { cents: 5 };\ncall("echo", m.show("c"));\ncall("echo", money.one.show("c"));\ncall("echo", m == Money { cents: 5 });\n',
  });
  assert.deepEqual(check(dir).lines, []);
  const r = turn(['run', 'main.tn'], { cwd: dir });
  assert.equal(r.stdout, '5c\n1c\ntrue\n', r.stderr);
  fs.appendFileSync(path.join(dir, 'main.tn'), 'm.shw("c");\nm.show(1);\n');
  assert.deepEqual(check(dir).lines, ['main.tn:6:3: Money has no method `shw` (did you mean `show`?)', 'main.tn:7:8: type mismatch: parameter `suffix` of `Money.show` is Str, got Num']);
});

test('a struct declared again differently in the using file is an error; an identical copy is the same struct', () => {
  const differs = project({ 'money.tn': MONEY, 'main.tn': 'let money = use "./money";\nstruct Money { cents: Num };\n' });
  const c = check(differs);
  assert.equal(c.code, 2);
  assert.equal(c.lines.length, 1);
  assert.match(c.lines[0], /^main\.tn:2:8: `Money` is also declared in money\.tn, differently: a type's name is its identity across the program/);
  const same = project({ 'money.tn': MONEY, 'main.tn': 'let money = use "./money";\nstruct Money { cents: Num, currency: "EUR" | "USD" };\ncall("echo", money.fmt(Money { cents: 1, currency: "USD" }));\n' });
  assert.deepEqual(check(same).lines, []);
});

test('two modules declaring one name differently are an error at the second use', () => {
  const dir = project({
    'a.tn': 'struct Item { name: Str };\nreturn {};',
    'b.tn': 'struct Item { id: Num };\nreturn {};',
    'main.tn': 'let a = use "./a";\nlet b = use "./b";\n',
  });
  const c = check(dir);
  assert.equal(c.lines.length, 1);
  assert.match(c.lines[0], /^main\.tn:2:13: `Item` is declared differently in a\.tn and b\.tn/);
});

test('a module cycle is a compile-time error at each use on it, shown with relative paths', () => {
  const dir = project({
    'a.tn': 'let b = use "./b";\nreturn {"x": 1};\n',
    'b.tn': 'let c = use "./lib/c";\nreturn {"y": 2};\n',
    'lib/c.tn': 'let a = use "../a";\nreturn {"z": 3};\n',
    'main.tn': 'let a = use "./a";\ncall("echo", a.x);\n',
  });
  const c = check(dir);
  assert.equal(c.code, 2);
  const cycle = 'module cycle: a.tn → b.tn → lib/c.tn → a.tn';
  assert.deepEqual(c.lines.map((l) => l.replace(/ \(a module cannot use.*$/, '')).sort(), [`a.tn:1:13: ${cycle}`, `b.tn:1:13: ${cycle}`, `lib/c.tn:1:13: ${cycle}`]);
  assert.doesNotMatch(c.stderr, new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // a module using itself is the shortest cycle
  const self = project({ 'main.tn': 'let me = use "./main";\n' });
  assert.deepEqual(check(self).lines.map((l) => l.replace(/ \(a module cannot use.*$/, '')), ['main.tn:1:14: module cycle: main.tn → main.tn']);
});

test('a module that does not parse is an error at its use too; one that is not text, an error at its use only', () => {
  const dir = project({ 'broken.tn': 'let x = ;\nreturn {};\n', 'main.tn': 'let b = use "./broken";\n' });
  assert.deepEqual(check(dir).lines, [
    'main.tn:1:13: module broken.tn does not parse: broken.tn:1:9: syntax error: expected an expression, found `;`',
    'broken.tn:1:9: syntax error: expected an expression, found `;`',
  ]);
  const binary = project({ 'main.tn': 'let b = use "./blob";\n' });
  fs.writeFileSync(path.join(binary, 'blob.tn'), Buffer.from([0xff, 0xfe, 0x00, 0x41]));
  const c = check(binary);
  assert.equal(c.code, 2);
  assert.deepEqual(c.lines, ['main.tn:1:13: cannot use this module: blob.tn: not a text file (binary data at byte 2)']);
});

test('bare module names resolve beside the file, then through turn.json paths, then from the project folder', () => {
  const dir = project({
    'turn.json': JSON.stringify({ paths: { finance: './vendor/finance' } }),
    'vendor/finance/money.tn': MONEY,
    'shared/util.tn': 'let twice = turn(x: Num) -> Num { return x * 2; };\nreturn {"twice": twice};\n',
    'app/main.tn': ['let money = use "finance/money";', 'let util = use "shared/util";', 'call("echo", money.fmt(Money { cents: util.twice(21), currency: "USD" }));', 'util.twice("x");'].join('\n'),
  });
  assert.deepEqual(check(dir, 'app/main.tn').lines, ['app/main.tn:4:12: type mismatch: parameter `x` of `twice` is Num, got Str']);
  fs.writeFileSync(path.join(dir, 'app/main.tn'), 'let money = use "finance/money";\nlet util = use "shared/util";\ncall("echo", money.fmt(Money { cents: util.twice(21), currency: "USD" }));\n');
  const r = turn(['run', 'app/main.tn'], { cwd: dir });
  assert.equal(r.stdout, 'USD 42\n', r.stderr);
  const missing = project({ 'turn.json': '{"paths": {}}', 'main.tn': 'let m = use "nowhere/thing";\n' });
  const c = check(missing);
  assert.equal(c.lines.length, 1);
  assert.match(c.lines[0], /^main\.tn:1:13: cannot find module `nowhere\/thing` \(looked for .*nowhere\/thing\.tn\)/);
});

test('a broken turn.json is a located error at the use that needed it', () => {
  for (const [text, why] of [
    ['{"paths": ', /not valid JSON/],
    ['[1]', /must hold a JSON object/],
    ['{"paths": {"lib": 3}}', /"paths"\."lib" must be a non-empty string/],
    ['{"paths": {"lib": "/etc"}}', /must be relative to the project folder/],
    ['{"paths": {"../up": "./x"}}', /must be a module name/],
    [' '.repeat(70 * 1024), /too large for a project file/],
  ] as const) {
    const dir = project({ 'turn.json': text, 'main.tn': 'let m = use "lib/money";\n' });
    const c = check(dir);
    assert.equal(c.code, 2, text.slice(0, 40));
    assert.equal(c.lines.length, 1, c.lines.join('\n'));
    assert.match(c.lines[0], /^main\.tn:1:13: cannot resolve module `lib\/money`: .*turn\.json: /);
    assert.match(c.lines[0], why);
  }
  // a relative spec never reads turn.json: the project file cannot redirect `./x`
  const dir = project({ 'turn.json': '{"paths": ', 'main.tn': 'let m = use "./money";\nm.fmt(1);\n', 'money.tn': MONEY });
  assert.deepEqual(check(dir).lines, ['main.tn:2:7: type mismatch: parameter `m` of `fmt` is Money, got Num']);
});

test('what a module returns decides what is known of it: a map literal, a name bound to one, nothing, or a value of its own', () => {
  const dir = project({
    'named.tn': 'let api = {"one": turn(x: Num) -> Num { return x; }};\nreturn api;\n',
    'nothing.tn': 'let x = 1;\n',
    'branchy.tn': 'if true { return {"a": 1}; }\nreturn {"b": 2};\n',
    'num.tn': 'return 5;\n',
    'main.tn': ['let named = use "./named";', 'named.one("s");', 'let nothing = use "./nothing";', 'call("echo", nothing.x);', 'let branchy = use "./branchy";', 'call("echo", branchy.a);', 'let num = use "./num";', 'call("echo", num.x);'].join('\n'),
  });
  assert.deepEqual(check(dir).lines, [
    'main.tn:2:11: type mismatch: parameter `x` of `one` is Num, got Str',
    'main.tn:4:22: a Null has no field `x`',
    'main.tn:8:18: a Num has no field `x`',
  ]);
});

/** A source of in-memory files for the graph (each file's `use`s are the names it lists). */
function memorySource(graph: Record<string, string[]>): ModuleSource {
  const uses = new Map<Program, Map<UseExpr, string>>();
  return {
    async read(p) {
      if (!(p in graph)) return { ok: false, message: `${p}: no such file` };
      const program: Program = { kind: 'Program', body: [], span: { start: 0, end: 0 } };
      const m = new Map<UseExpr, string>();
      for (const target of graph[p]) m.set({ kind: 'Use', path: { kind: 'String', value: target, span: { start: 0, end: 0 } }, span: { start: 0, end: 0 } } satisfies UseExpr, target);
      uses.set(program, m);
      return { ok: true, file: new SourceFile(p, ''), program, syntax: [] };
    },
    async check(_p, parsed, context) {
      const problems = [...context.modules.values()].map((m) => m.problem).filter((x): x is string => x !== undefined);
      return { exports: { value: { kind: 'Any' }, types: [] }, result: problems, file: parsed.file };
    },
    uses: (_p, program) => uses.get(program) ?? new Map(),
  };
}

test('the module graph is bounded in depth and in count, with a message at the use past the bound', async () => {
  const chain: Record<string, string[]> = {};
  for (let i = 0; i < 10; i++) chain[`m${i}`] = i < 9 ? [`m${i + 1}`] : [];
  const deep = new ModuleGraph(memorySource(chain), (f) => f, { modules: 100, depth: 4 });
  await deep.check('m0');
  assert.deepEqual([...deep.checked.keys()].sort(), ['m0', 'm1', 'm2', 'm3']);
  assert.deepEqual(deep.checked.get('m3')!.result, ['modules nest too deeply: 4 files in a chain of `use`s (the limit is 4)']);

  const wide: Record<string, string[]> = { root: [] };
  for (let i = 0; i < 20; i++) {
    wide.root.push(`leaf${i}`);
    wide[`leaf${i}`] = [];
  }
  const many = new ModuleGraph(memorySource(wide), (f) => f, { modules: 5, depth: 10 });
  await many.check('root');
  assert.equal(many.checked.size, 5);
  const problems = many.checked.get('root')!.result as string[];
  assert.equal(problems.length, 16);
  assert.ok(problems.every((p) => p === 'the program has too many modules (the limit is 5 files)'));
});
