// The command table (cli/commands.ts): every command answers --help, -h and `turn help CMD` with
// its options, before anything starts; wrong options are answered in Turn's words; `turn --help`
// and the README's command table come from the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, commandHelp, mainHelp, readmeTable, withReadmeTable, type CommandName } from '../../cli/commands.js';
import { ROOT, turn } from './run-cli.js';

const NAMES = Object.keys(COMMANDS) as CommandName[];

test('every command answers --help, -h and `turn help CMD` with its usage and every option it parses', () => {
  for (const name of NAMES) {
    const expected = commandHelp(name) + '\n';
    // (`--help` anywhere among the arguments, as `turn run prog.tn --help`)
    for (const args of [[name, '--help'], [name, '-h'], ['help', name], ...(name === 'run' ? [[name, 'some-file.tn', '--help']] : [])]) {
      const r = turn(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, expected, args.join(' '));
      assert.equal(r.stderr, '', args.join(' '));
    }
    // each option the command parses is listed (the parser and the help are one table)
    for (const option of Object.keys(COMMANDS[name].options)) assert.ok(expected.includes(`--${option}`), `${name} --help lists --${option}`);
    assert.match(expected, new RegExp(`^usage: turn ${name}\\b`));
  }
});

test('`turn lsp --help` prints the help and exits; it does not start the server', () => {
  const r = turn(['lsp', '--help']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, commandHelp('lsp') + '\n');
  assert.doesNotMatch(r.stdout, /Content-Length/);
});

test('a `--help` after `--` is an argument, not a request for help', () => {
  const r = turn(['run', '--', '--help']);
  assert.notEqual(r.code, 0);
  assert.notEqual(r.stdout, commandHelp('run') + '\n');
});

test("wrong options are said in Turn's words, with the nearest option and the command's --help", () => {
  const cases: [string[], string][] = [
    [['run', '--jsn', 'x.tn'], 'turn: `turn run` has no option `--jsn` (did you mean `--json`?)'],
    [['check', '--ofline', 'x.tn'], 'turn: `turn check` has no option `--ofline` (did you mean `--offline`?)'],
    [['test', '--wach'], 'turn: `turn test` has no option `--wach` (did you mean `--watch`?)'],
    [['run', '--frobnicate', 'x.tn'], 'turn: `turn run` has no option `--frobnicate`'],
    [['run', 'x.tn', '--model'], 'turn: `--model` needs a value (`--model VALUE` or `--model=VALUE`)'],
    [['run', 'x.tn', '--json=yes'], 'turn: `--json` takes no value'],
    [['fmt', '--chek', 'x.tn'], 'turn: `turn fmt` has no option `--chek` (did you mean `--check`?)'],
  ];
  for (const [args, first] of cases) {
    const r = turn(args);
    assert.equal(r.code, 64, args.join(' '));
    assert.equal(r.stderr, `${first}\nrun \`turn ${args[0]} --help\` for its options\n`, args.join(' '));
    assert.doesNotMatch(r.stderr, /positional argument|place it at the end/);
  }
  const unknown = turn(['chek', 'x.tn']);
  assert.equal(unknown.code, 64);
  assert.match(unknown.stderr, /^turn: unknown command `chek` \(did you mean `check`\?\)\n/);
});

test('`turn --help` and the README command table come from the same table', () => {
  const r = turn(['--help']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, mainHelp() + '\n');
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  // the README holds the table as generated (scripts/readme-commands.ts writes it)
  assert.equal(withReadmeTable(readme), readme, 'README.md is stale: run `node --import tsx scripts/readme-commands.ts`');
  assert.ok(readme.includes(readmeTable()));
  for (const name of NAMES) {
    assert.ok(r.stdout.includes(`  ${name}`), `turn --help lists ${name}`);
    assert.ok(readmeTable().includes(`| \`turn ${name}`), `the README lists ${name}`);
  }
});
