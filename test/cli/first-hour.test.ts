// The command line a newcomer meets in the first hour (issue 28): folders for check and fmt, one
// syntax-error report for both, read-only commands that create nothing, a short usage error, and
// one way of showing paths in compile and run-time errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turn } from './run-cli.js';

const work = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-first-hour-')));

test('turn check DIR and turn fmt --check DIR take folders, as turn test does', () => {
  const dir = work();
  fs.mkdirSync(path.join(dir, 'src', 'nested'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.writeFileSync(path.join(dir, 'src', 'a.tn'), 'call("echo", 1);\n');
  fs.writeFileSync(path.join(dir, 'src', 'nested', 'b.tn'), 'let x = undefined_name;\n');
  fs.writeFileSync(path.join(dir, 'src', 'nested', 'c.tn'), 'let   y =   2;\n');
  fs.writeFileSync(path.join(dir, 'node_modules', 'skip.tn'), 'let = ;\n');
  const check = turn(['check', 'src'], { cwd: dir });
  assert.equal(check.code, 2, check.stderr);
  assert.match(check.stderr, /^src\/nested\/b\.tn:1:9: .*undefined_name/m);
  assert.doesNotMatch(check.stderr, /a\.tn|skip\.tn|refuse|directory/);
  assert.equal(turn(['check', path.join('src', 'a.tn')], { cwd: dir }).code, 0);
  const fmt = turn(['fmt', '--check', 'src'], { cwd: dir });
  assert.equal(fmt.code, 1, fmt.stderr);
  assert.equal(fmt.stderr.trim(), 'src/nested/c.tn: would be reformatted');
  const missing = turn(['check', 'src', 'nope'], { cwd: dir });
  assert.match(missing.stderr, /turn: nope: no such file or folder/);
  // and the repository's examples, the case (examples/mcp_everything.tn lists its server's tools
  // at compile time, which its header's --allow-run node grants)
  const examples = turn(['check', 'examples', '--allow-run', 'node']);
  assert.equal(examples.code, 0, examples.stderr);
  assert.equal(turn(['fmt', '--check', 'examples']).code, 0);
});

test('turn fmt reports a syntax error where turn check does, and says what it is', () => {
  const dir = work();
  // a non-ASCII line before the error: a byte column and a character column differ there
  fs.writeFileSync(path.join(dir, 'bad.tn'), 'let s = "é語";  let y = (2 + ;\ncall("echo", s);\n');
  const check = turn(['check', 'bad.tn'], { cwd: dir });
  const fmt = turn(['fmt', 'bad.tn'], { cwd: dir });
  assert.equal(check.code, 2);
  assert.equal(fmt.code, 2);
  const first = check.stderr.split('\n')[0];
  assert.match(first, /^bad\.tn:1:\d+: syntax error: /);
  assert.equal(fmt.stderr.split('\n')[0], first);
  assert.match(fmt.stderr, /bad\.tn: not formatted: fix the syntax errors first/);
  assert.equal(fs.readFileSync(path.join(dir, 'bad.tn'), 'utf8'), 'let s = "é語";  let y = (2 + ;\ncall("echo", s);\n', 'left untouched');
});

test('read-only commands create no store and no .gitignore', () => {
  const dir = work();
  const inspect = turn(['inspect', 'nosuchrun'], { cwd: dir });
  assert.equal(inspect.code, 1);
  assert.match(inspect.stderr, /there is no Turn store in .*\.turn/);
  const runs = turn(['runs', '--store', 'typo-dir'], { cwd: dir });
  assert.equal(runs.code, 0);
  assert.match(runs.stdout, /no runs \(there is no Turn store in .*typo-dir\)/);
  for (const args of [['resume', 'r1'], ['resolve', 'r1', '1', '--retry'], ['record', 'r1'], ['runs', '--json']]) {
    const r = turn(args, { cwd: dir });
    assert.notEqual(r.code, 70, r.stderr);
  }
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing was created');
});

test('a wrong command line prints the error and a hint, not the whole usage', () => {
  for (const args of [['frob'], ['run', '--bogus', 'x.tn'], ['check'], ['runs', 'extra']]) {
    const r = turn(args);
    assert.equal(r.code, 64, args.join(' '));
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0], /^turn: /);
    // a command's own line names its --help; an unknown command, `turn help`
    assert.ok(['run `turn help` for the commands and their options', `run \`turn ${args[0]} --help\` for its options`].includes(lines[1]), r.stderr);
  }
  assert.match(turn(['help']).stdout, /^usage: turn <command>/);
});

test('compile-time and run-time errors show the program\'s path the same way (relative to the working directory)', () => {
  const dir = work();
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.writeFileSync(path.join(dir, 'sub', 'compile.tn'), 'let x = undefined_name;\n');
  fs.writeFileSync(path.join(dir, 'sub', 'runtime.tn'), 'let f = turn() -> Any { throw "boom"; };\nf();\n');
  for (const given of ['sub', path.join(dir, 'sub')]) {
    const c = turn(['run', path.join(given, 'compile.tn')], { cwd: dir });
    const r = turn(['run', path.join(given, 'runtime.tn')], { cwd: dir });
    assert.match(c.stderr, /^sub\/compile\.tn:1:9: /m, c.stderr);
    assert.match(r.stderr, /^sub\/runtime\.tn:1:\d+: runtime error: uncaught error: boom/m, r.stderr);
    assert.match(r.stderr, /^ {4}at main \(sub\/runtime\.tn:2:1\)/m, r.stderr);
  }
});
