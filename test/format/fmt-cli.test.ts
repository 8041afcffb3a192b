// `turn fmt` through the built command (bin/turn.js → dist/cli.js), as a user runs it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { turn } from '../cli/run-cli.js';

function tmp(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fmt-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('turn fmt', () => {
  it('formats files in place; --check changes nothing and exits 1 when a file would change', () => {
    const dir = tmp({ 'a.tn': 'let a=1;\n', 'b.tn': 'let b = 2;\n' });
    const a = path.join(dir, 'a.tn');
    const b = path.join(dir, 'b.tn');
    const checked = turn(['fmt', '--check', a, b]);
    assert.equal(checked.code, 1, checked.stderr);
    assert.match(checked.stderr, /a\.tn: would be reformatted/);
    assert.doesNotMatch(checked.stderr, /b\.tn/);
    assert.equal(fs.readFileSync(a, 'utf8'), 'let a=1;\n');

    const formatted = turn(['fmt', a, b]);
    assert.equal(formatted.code, 0, formatted.stderr);
    assert.equal(fs.readFileSync(a, 'utf8'), 'let a = 1;\n');
    assert.equal(turn(['fmt', '--check', a, b]).code, 0);
  });

  it('leaves a file with syntax errors alone and exits 2 with FILE:LINE:COL', () => {
    const dir = tmp({ 'bad.tn': 'let a = 1;\nlet = ;\n' });
    const bad = path.join(dir, 'bad.tn');
    const r = turn(['fmt', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.tn:2:\d+: syntax error: /);
    assert.match(r.stderr, /bad\.tn: not formatted: fix the syntax errors first/);
    assert.equal(fs.readFileSync(bad, 'utf8'), 'let a = 1;\nlet = ;\n');
  });

  it('formats standard input to standard output with `-`, and rejects a missing FILE', () => {
    const r = turn(['fmt', '-'], { input: 'call("echo",1);' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'call("echo", 1);\n');
    assert.equal(turn(['fmt']).code, 64);
    assert.equal(turn(['fmt', path.join(os.tmpdir(), 'no-such-file.tn')]).code, 2);
  });
});
