import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { JS_STACK, ROOT, turn } from './run-cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-cli-'));
function file(name: string, content: string | Buffer): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, content);
  return p;
}

function assertClean(stderr: string): void {
  assert.doesNotMatch(stderr, JS_STACK, 'no JavaScript stack trace');
  assert.doesNotMatch(stderr, /internal error/);
}

test('run prints echo lines and exits 0; --json adds the result as the last line', () => {
  const p = file('ok.tn', 'call("echo", "hi");\nreturn {"n": [1, 2], "s": "x"};');
  const r = turn(['run', p, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'hi\n{"n":[1,2],"s":"x"}\n');
});

test('a missing file, a directory, binary data and invalid UTF-8 are input errors with exit code 2', () => {
  const cases: [string, RegExp][] = [
    [path.join(tmp, 'nope.tn'), /nope\.tn: no such file/],
    [tmp, /is a directory/],
    [file('bin.tn', Buffer.from([0x6c, 0x65, 0x74, 0x00, 0x01, 0x02])), /not a text file \(binary data at byte 3\)/],
    [file('latin1.tn', Buffer.from('call("echo", "caf\xe9");', 'latin1')), /not a text file \(invalid UTF-8 at byte 17\)/],
  ];
  for (const [p, message] of cases) {
    // `turn check` takes a folder as its .tn files (test/cli/first-hour.test.ts); `turn run` does not
    for (const command of p === tmp ? ['run'] : ['run', 'check']) {
      const r = turn([command, p]);
      assert.equal(r.code, 2, `${command} ${p}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assertClean(r.stderr);
      assert.equal(r.stdout, '');
    }
  }
});

test('an empty file runs as an empty program, with a warning', () => {
  const r = turn(['run', file('empty.tn', '')]);
  assert.equal(r.code, 0);
  assert.match(r.stderr, /warning: .*empty\.tn has no statements/);
  assert.equal(turn(['check', file('empty2.tn', '')]).code, 0);
});

test('a 10 MB source file is refused with a message, quickly', () => {
  const line = 'let x = x + 1;\n';
  const p = file('big.tn', 'let x = 0;\n' + line.repeat(Math.ceil((10 * 1024 * 1024) / line.length)));
  const r = turn(['run', p]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /big\.tn: file is too large \(10\.0 MiB; the limit is 4 MiB\)/);
  assertClean(r.stderr);
});

test('deeply nested expressions are a compile error with a location, not a crash', () => {
  const depth = 100_000;
  const r = turn(['run', file('deep.tn', 'call("echo", 1);\nlet x = ' + '['.repeat(depth) + ']'.repeat(depth) + ';\n')]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /deep\.tn:2:\d+: nesting too deep/);
  assert.equal(r.stdout, '', 'nothing runs');
  assertClean(r.stderr);
});

test('check reports every diagnostic as FILE:LINE:COL and exits 2; a clean file exits 0', () => {
  const bad = file('bad.tn', 'let a = 1;\ncall("echo", b);\nlet c = Nope { x: 1 };\n');
  const r = turn(['check', bad]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `${bad}:2:14: undefined name \`b\`\n${bad}:3:9: unknown struct \`Nope\`\n`);
  const good = turn(['check', file('good.tn', 'let a = 1;\n')]);
  assert.equal(good.code, 0);
  assert.equal(good.stderr, '');
});

test('a run-time error exits 1 naming the Turn source line, after the output that ran', () => {
  const p = file('boom.tn', 'call("echo", "before");\nlet f = turn(x: Num) -> Num { return x / missing_list[3]; };\nlet missing_list = [1];\ncall("echo", f(2));\n');
  const r = turn(['run', p]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'before\n');
  assert.match(r.stderr, /boom\.tn:2:\d+: runtime error: .*index/i);
  assertClean(r.stderr);
});

test('a runaway loop ends at the step budget with a clear error', () => {
  const r = turn(['run', file('spin.tn', 'let i = 0;\nwhile true { let i = i + 1; }\n'), '--max-steps', '10000']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /spin\.tn:2:\d+: runtime error: step budget of 10000 exhausted/);
});

test('unbounded recursion is a Turn error, not a JavaScript stack overflow', () => {
  const r = turn(['run', file('rec.tn', 'let f = turn(n: Num) -> Num { return f(n + 1); };\nf(0);\n')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /rec\.tn:1:\d+: runtime error: .*depth/);
  assertClean(r.stderr);
});

test('usage errors exit 64 with the usage text', () => {
  for (const args of [['frobnicate'], ['run'], ['run', 'a.tn', 'b.tn'], ['run', 'a.tn', '--bogus'], ['run', 'a.tn', '--max-steps', 'ten'], ['run', 'a.tn', '--model', 'gpt-zero']]) {
    const r = turn(args);
    assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^turn: /);
    assertClean(r.stderr);
  }
  assert.equal(turn(['--help']).code, 0);
});

test('turn lsp answers an LSP initialize request on standard input/output, and exits cleanly', async () => {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), 'lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const send = (message: object) => {
    const s = JSON.stringify({ jsonrpc: '2.0', ...message });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`);
  };
  let stdout = '';
  const replies: { id?: number; result?: { capabilities?: object } }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (;;) {
      const m = /Content-Length: (\d+)\r\n\r\n/.exec(stdout);
      if (!m || stdout.length < m.index + m[0].length + Number(m[1])) break;
      replies.push(JSON.parse(stdout.slice(m.index + m[0].length, m.index + m[0].length + Number(m[1]))));
      stdout = stdout.slice(m.index + m[0].length + Number(m[1]));
    }
  });
  const waitFor = async (id: number) => {
    for (let i = 0; i < 200 && !replies.some((r) => r.id === id); i++) await new Promise((r) => setTimeout(r, 50));
    return replies.find((r) => r.id === id);
  };
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  send({ id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
  const init = await waitFor(1);
  assert.ok(init?.result?.capabilities, 'the server answers initialize with its capabilities');
  send({ id: 2, method: 'shutdown' });
  await waitFor(2);
  send({ method: 'exit' });
  assert.equal(await closed, 0);
});
