// Depth hardening (docs/reliability.md, "Depth"): input nested as deep as anyone likes — in the
// source or in the values a program builds — ends with a located Turn message, never with
// `internal error: Maximum call stack size exceeded`. Every test here reproduces a crash that
// existed; the in-process ones go through the runtime's public entry, the last ones through the
// built `turn` command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  checkSource, compileProgram, formatDiagnostic, formatSource, RunSetupError, startRun, type RunResult,
} from '../../runtime/index.js';
import { stackTraceLines } from '../../cli/report.js';
import { JS_STACK, ROOT, turn } from '../cli/run-cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-depth-'));
function file(name: string, text: string): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, text);
  return p;
}

const LOCATED = (name: string, line: number | string = '\\d+') => new RegExp(`^${name.replace(/\./g, '\\.')}:${line}:\\d+: `);

/** `turn check`'s diagnostics for `text`: every one located, none an internal error. */
async function diagnose(name: string, text: string): Promise<string[]> {
  const r = await checkSource(name, text);
  const lines = r.diagnostics.map((d) => formatDiagnostic(r.file, d));
  for (const l of lines) {
    assert.match(l, LOCATED(name));
    assert.doesNotMatch(l, /internal error|call stack/i);
  }
  return lines;
}

/** Asserts the program does not compile, with a located `nesting too deep` at `line`. */
async function assertTooDeep(name: string, text: string, line: number): Promise<void> {
  const lines = await diagnose(name, text);
  assert.ok(lines.some((l) => LOCATED(name, line).test(l) && /nesting too deep: more than (1000 levels|200 prefix operators)/.test(l)), lines.join('\n'));
  await assert.rejects(compileProgram(file(name, text), { fetchSchemas: false }), (e: unknown) => {
    assert.ok(e instanceof RunSetupError && e.kind === 'compile', String(e));
    assert.ok(e.diagnostics.some((d) => d.diagnostic.code === 'nesting'));
    return true;
  });
}

async function runProgram(name: string, text: string): Promise<{ result: RunResult; output: string[] }> {
  const output: string[] = [];
  const run = await startRun({ file: file(name, text), model: 'mock', fetchSchemas: false, onOutput: (l) => output.push(l) });
  return { result: await run.start(), output };
}

/** What a result says, short (its values may be too deep for JSON.stringify). */
function describe(result: RunResult): string {
  return result.kind === 'failed' ? `failed: ${result.error.message.slice(0, 300)}` : result.kind;
}

function assertFailedAt(result: RunResult, line: number, message: RegExp): void {
  assert.equal(result.kind, 'failed', describe(result));
  if (result.kind !== 'failed') return;
  assert.equal(result.error.line, line, result.error.message.slice(0, 300));
  assert.ok(result.error.column >= 1);
  assert.match(result.error.message, message);
  assert.doesNotMatch(result.error.message, /internal error|call stack/i);
}

const calls = (n: number) => 'let f = turn(x) { return x; };\nlet y = ' + 'f('.repeat(n) + '1' + ')'.repeat(n) + ';\ncall("echo", y);\n';
const parens = (n: number) => 'let y = ' + '('.repeat(n) + '1' + ')'.repeat(n) + ';\n';
const DEEP_LIST = 'let l = [];\nlet i = 0;\nwhile i < 200000 { let l = [l]; let i = i + 1; }\n';

// ------------------------------------------------------------------------------------ source

test('prefix chains 8,000 deep are a located nesting error (a run of over 200 prefix operators is refused before parsing: runtime/syntax/nesting.ts)', async () => {
  await assertTooDeep('bang.tn', 'let x = !!' + '('.repeat(8000) + 'true' + ')'.repeat(8000) + ';\n', 1);
  await assertTooDeep('minus.tn', 'let x = 1;\nlet y = ' + '-'.repeat(8000) + 'x;\n', 2);
  await assertTooDeep('not.tn', 'let x = ' + '!'.repeat(8000) + 'true;\n', 1);
});

test('1,000 nested calls are a located nesting error; 999 compile and run', async () => {
  await assertTooDeep('calls.tn', calls(1000), 2);
  const { result, output } = await runProgram('calls999.tn', calls(999));
  assert.equal(result.kind, 'done', describe(result));
  assert.deepEqual(output, ['1']);
});

test('every kind of nesting counts: else-if chains, generic and function types, blocks, operators', async () => {
  await assertTooDeep('elif.tn', 'let x = 1;\nif x == 0 { x; }' + ' else if x == 1 { x; }'.repeat(20000) + '\n', 2);
  await assertTooDeep('generic.tn', 'let x: ' + 'List<'.repeat(5000) + 'Num' + '>'.repeat(5000) + ' = [];\n', 1);
  await assertTooDeep('fntype.tn', 'let x: ' + '(Num) -> '.repeat(20000) + 'Num = null;\n', 1);
  await assertTooDeep('field.tn', 'struct S { a: ' + 'List<'.repeat(5000) + 'Num' + '>'.repeat(5000) + ' };\nlet s = infer S { "x"; };\n', 1);
  await assertTooDeep('closures.tn', 'let f = ' + 'turn() { return '.repeat(3000) + '1' + '; }'.repeat(3000) + ';\n', 1);
  await assertTooDeep('ifs.tn', 'if true { '.repeat(3000) + '}'.repeat(3000) + '\n', 1);
  await assertTooDeep('plus.tn', 'let x = 1' + ' + 1'.repeat(50000) + ';\n', 1);
  await assertTooDeep('member.tn', 'let x = {};\nlet y = x' + '.a'.repeat(20000) + ';\n', 2);
  await assertTooDeep('parens.tn', parens(10000), 1);
});

test('a program as deep as the limit allows compiles and runs with a third of the JavaScript stack to spare', () => {
  // Each pass over a tree within the limit must fit in well under the default stack (984 KB):
  // check, format, compile and run at-the-limit programs under --stack-size=600.
  const programs = {
    'calls.tn': calls(999),
    'parens.tn': 'let y = ' + '('.repeat(998) + '1' + ')'.repeat(998) + ';\ncall("echo", y);\n',
    'plus.tn': 'let y = 1' + ' + 1'.repeat(998) + ';\ncall("echo", y);\n',
    'elif.tn': 'let x = 3;\nif x == 0 { x; }' + ' else if x == 1 { x; }'.repeat(990) + ' else { call("echo", x); }\n',
    'closures.tn': 'let f = ' + 'turn() { return '.repeat(490) + '1' + '; }'.repeat(490) + ';\ncall("echo", 1);\n',
    'list.tn': 'let y = ' + '['.repeat(999) + ']'.repeat(999) + ';\ncall("echo", 1);\n',
    'types.tn': 'struct S { a: ' + 'List<'.repeat(990) + 'Num' + '>'.repeat(990) + ' };\nlet s: ' + 'List<'.repeat(990) + 'Num' + '>'.repeat(990) + ' = [];\ncall("echo", 1);\n',
  };
  const files = Object.entries(programs).map(([name, text]) => file(`limit-${name}`, text));
  const script = `
    const { checkSource, startRun, formatSource } = require(${JSON.stringify(path.join(ROOT, 'runtime', 'index.ts'))});
    const fs = require('node:fs');
    (async () => {
      for (const f of ${JSON.stringify(files)}) {
        const text = fs.readFileSync(f, 'utf8');
        const checked = await checkSource(f, text);
        if (checked.diagnostics.length) throw new Error(f + ': ' + checked.diagnostics[0].message);
        const formatted = await formatSource(text);
        if (!formatted.ok) throw new Error(f + ': ' + formatted.message);
        const out = [];
        const run = await startRun({ file: f, model: 'mock', fetchSchemas: false, onOutput: (l) => out.push(l) });
        const r = await run.start();
        if (r.kind !== 'done') throw new Error(f + ': ' + JSON.stringify(r).slice(0, 300));
        console.log(out.join(','));
      }
    })().catch((e) => { console.error(e && e.stack || e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['--stack-size=600', '--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '1\n1\n999\n3\n1\n1\n1\n');
});

test('mutated deep programs (deep syntax-error trees) get located syntax errors', async () => {
  const bases = [
    parens(8000),
    calls(3000),
    'let y = ' + '[('.repeat(4000) + '1' + ')]'.repeat(4000) + ';\n',
    'let x = 1;\nif x == 0 { x; }' + ' else if x == 1 { x; }'.repeat(5000) + '\n',
    'let f = ' + 'turn() { return '.repeat(3000) + '1' + '; }'.repeat(3000) + ';\n',
    'let x: ' + 'List<'.repeat(5000) + 'Num' + '>'.repeat(5000) + ' = [];\n',
  ];
  const mutations: ((t: string) => string)[] = [
    (t) => t.slice(0, t.length / 2) + t.slice(t.length / 2 + 1), // drop a character in the middle
    (t) => t.slice(0, t.length / 2) + ' @ ' + t.slice(t.length / 2), // a character no token starts with
    (t) => t.slice(0, t.length / 2) + ' let ' + t.slice(t.length / 2), // a keyword where it cannot be
    (t) => t.slice(0, t.length / 2), // cut off
    (t) => t.slice(t.length / 2), // the second half only
    (t) => t.slice(0, t.length / 3) + ';' + t.slice(t.length / 3 + 1),
    (t) => t.replace(/\(/g, '[') + ')',
  ];
  let i = 0;
  for (const base of bases) {
    for (const mutate of mutations) {
      const name = `mutant${i++}.tn`;
      const lines = await diagnose(name, mutate(base));
      assert.ok(lines.length > 0, `${name} has errors`);
    }
  }
});

test('formatting 5,000 nested parentheses (and a deep syntax error) does not overflow', async () => {
  const text = 'let y = ' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ';\n';
  const r = await formatSource(text);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.text, text);
  const messy = 'let y=' + '( '.repeat(5000) + '[1,2]' + ' )'.repeat(5000) + ';';
  const m = await formatSource(messy);
  assert.ok(m.ok, JSON.stringify(m));
  assert.equal(m.text, 'let y = ' + '('.repeat(5000) + '[1, 2]' + ')'.repeat(5000) + ';\n');
  const broken = await formatSource('let y = ' + '('.repeat(5000) + '1 2' + ')'.repeat(5000) + ';\n');
  assert.ok(!broken.ok);
  assert.equal(broken.line, 1);
  assert.ok(broken.column > 1);
});

// ------------------------------------------------------------------------------------ values

test('returning a 200,000-deep list is a located run-time error, not a crash', async () => {
  const { result } = await runProgram('return.tn', DEEP_LIST + 'return l;\n');
  assertFailedAt(result, 4, /the program's result is nested more than 1000 levels deep/);
});

test('throwing a 200,000-deep list fails at the throw, with a bounded message', async () => {
  const { result } = await runProgram('throw.tn', DEEP_LIST + 'throw l;\n');
  assertFailedAt(result, 4, /^uncaught error: \[\[\[\[/);
  if (result.kind === 'failed') assert.ok(result.error.message.length < 2000, `${result.error.message.length} characters`);
});

test('deep values print, compare, cross processes and catch like shallow ones', async () => {
  const { result, output } = await runProgram(
    'values.tn',
    DEEP_LIST +
      'let m = [];\nlet i = 0;\nwhile i < 200000 { let m = [m]; let i = i + 1; }\n' +
      'call("echo", l == m);\n' +
      'call("echo", call("len", call("to_string", l)));\n' +
      'let p = spawn turn() { let v = receive; return v == m; };\n' +
      'send p, l;\n' +
      'call("echo", gather p);\n' +
      'try { throw l; } catch (e) { call("echo", e == m); }\n' +
      'try { call("json_stringify", l); } catch (e) { call("echo", e["message"]); }\n' +
      'let open = "";\nlet close = "";\nlet i = 0;\nwhile i < 100000 { let open = open + "["; let close = close + "]"; let i = i + 1; }\n' +
      'let j = call("json_parse", open + close);\n' +
      'call("echo", call("len", call("to_string", j)));\n',
  );
  assert.equal(result.kind, 'done', describe(result));
  assert.deepEqual(output, [
    'true',
    '400002',
    'true',
    'true',
    'a value nested more than 1000 levels deep cannot be converted to JSON',
    '200000',
  ]);
});

// ------------------------------------------------------------------------------------ stack traces

test('infinite recursion shows its stack with the repeats collapsed', () => {
  const f = { fn: 'f', path: 'p.tn', line: 2, column: 12 };
  const g = { fn: 'g', path: 'p.tn', line: 5, column: 12 };
  const main = { fn: 'main', path: 'p.tn', line: 7, column: 1 };
  assert.deepEqual(stackTraceLines([...Array<typeof f>(9998).fill(f), main]), [
    '    at f (p.tn:2:12)',
    '    ... 9,997 more frames of f (p.tn:2:12)',
    '    at main (p.tn:7:1)',
  ]);
  const mutual = [];
  for (let i = 0; i < 4999; i++) mutual.push(g, f);
  assert.deepEqual(stackTraceLines([f, ...mutual, main]), [
    '    at f (p.tn:2:12)',
    '    at g (p.tn:5:12)',
    '    ... 9,996 more frames: the 2 above, repeated 4,998 more times',
    '    at f (p.tn:2:12)',
    '    at main (p.tn:7:1)',
  ]);
  // two of a kind are shown as they are
  assert.deepEqual(stackTraceLines([f, f, main]), ['    at f (p.tn:2:12)', '    at f (p.tn:2:12)', '    at main (p.tn:7:1)']);
});

// ------------------------------------------------------------------------------------ the command

test('turn check, run and fmt on deep input: located messages and the documented exit codes', () => {
  const deepCalls = file('cli-calls.tn', calls(1000));
  for (const command of ['check', 'run']) {
    const r = turn([command, deepCalls]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cli-calls\.tn:2:\d+: nesting too deep/);
    assert.doesNotMatch(r.stderr, /internal error/);
    assert.doesNotMatch(r.stderr, JS_STACK);
  }
  const deepReturn = file('cli-return.tn', DEEP_LIST + 'return l;\n');
  for (const args of [['run', deepReturn], ['run', deepReturn, '--json']]) {
    const r = turn(args);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /cli-return\.tn:4:\d+: runtime error: the program's result is nested more than 1000 levels deep/);
    assert.doesNotMatch(r.stderr, /internal error/);
  }
  const fmt = file('cli-fmt.tn', 'let y=' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ';\n');
  const f = turn(['fmt', fmt]);
  assert.equal(f.code, 0, f.stderr);
  assert.equal(fs.readFileSync(fmt, 'utf8'), 'let y = ' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ';\n');
});

test('turn run: infinite recursion prints a short, located stack', () => {
  const p = file('rec.tn', 'let f = turn(n) {\n    return f(n + 1);\n};\nf(0);\n');
  const r = turn(['run', p]);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.match(lines[0], /rec\.tn:2:\d+: runtime error: call depth limit exceeded/);
  assert.match(lines[1], /^ {4}at f \(.*rec\.tn:2:\d+\)$/);
  assert.match(lines[2], /^ {4}\.\.\. 9,99\d more frames of f \(.*rec\.tn:2:\d+\)$/);
  assert.match(lines[3], /^ {4}at main \(.*rec\.tn:4:\d+\)$/);
  assert.equal(lines.length, 4, r.stderr);
});

test('the outline of 990 nested blocks answers (the editor walks blocks without recursion)', async () => {
  const { openText } = await import('../language-server/helpers.js');
  const { onDocumentSymbol } = await import('../../language-server/outline.js');
  const depth = 990;
  const text = 'let x = 0;\n' + 'while x < 1 { '.repeat(depth) + 'let deep = 1; x = 1;' + ' }'.repeat(depth) + '\n';
  const doc = await openText(text, 'deep.tn');
  const symbols = onDocumentSymbol(doc, { textDocument: { uri: doc.uri } });
  assert.deepEqual(symbols.map((s) => s.name), ['x', 'deep']);
});

test('json.pretty of a 100,000-deep value is the depth message json.stringify gives, not a stack overflow', async () => {
  const deep = 'let json = use "std/json";\nlet v = 1;\nlet i = 0;\nwhile i < 100000 { let v = [v]; let i = i + 1; }\n';
  const { result, output } = await runProgram(
    'pretty.tn',
    deep +
      'try { call("echo", json.pretty(v)); } catch (e) { call("echo", "pretty: " + e["message"]); }\n' +
      'try { call("echo", json.stringify(v)); } catch (e) { call("echo", "stringify: " + e["message"]); }\n' +
      'call("echo", json.pretty({"a": [1, {"__proto__": 2}]}));\n' +
      'json.pretty(v);\n',
  );
  assert.equal(output[0], 'pretty: a value nested more than 1000 levels deep cannot be converted to JSON');
  assert.equal(output[1], 'stringify: a value nested more than 1000 levels deep cannot be converted to JSON');
  assert.deepEqual(JSON.parse(output.slice(2).join('\n')), JSON.parse('{"a": [1, {"__proto__": 2}]}'));
  assertFailedAt(result, 8, /nested more than 1000 levels deep cannot be converted to JSON/);
});

test('an identity handle inside a value passed to a pure std tool is refused, not shown as {kind, name}', async () => {
  const { result } = await runProgram('handle.tn', 'let json = use "std/json";\nlet gh = grant identity::bearer("gh");\ncall("echo", json.pretty([1, {"auth": gh}]));\n');
  assertFailedAt(result, 3, /an identity handle cannot be passed to json_pretty/);
});
