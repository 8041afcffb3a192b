// `turn run --watch` and `turn test --watch`: the command runs, then runs again after each save of
// a .tn file it reads, each time in a fresh process, until Ctrl-C. Waits are on the command's own
// output (its "watching" line says the watcher is set before the file is changed), never on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, turn } from './run-cli.js';

/**
 * Starts the command. `until(pattern)` resolves when the output (stdout and stderr) since the last
 * match matches; `stop()` sends SIGINT and resolves with the exit code.
 */
function watching(args: string[], cwd: string) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let from = 0;
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const check = (): void => {
    const w = waiters[0];
    const m = w?.pattern.exec(out.slice(from));
    if (!w || !m) return;
    from += m.index + m[0].length;
    waiters.shift();
    w.resolve();
  };
  const onData = (d: Buffer): void => {
    out += d.toString();
    check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => out,
    until: (pattern: RegExp) => new Promise<void>((resolve, reject) => {
      waiters.push({ pattern, resolve });
      check();
      void exited.then((code) => reject(new Error(`exited ${code} before ${pattern}: ${out}`)));
    }),
    stop: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

// (the timeouts only end a hung test: every wait is on the command's output)
test('turn run --watch runs the file again when it, or a module it uses, is saved', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-watch-'));
  fs.writeFileSync(path.join(dir, 'lib.tn'), 'return 10;\n');
  fs.writeFileSync(path.join(dir, 'main.tn'), 'call("echo", "first");\n');
  const w = watching(['run', '--watch', 'main.tn'], dir);
  try {
    await w.until(/first\n[\s\S]*exit 0; watching/);
    fs.writeFileSync(path.join(dir, 'main.tn'), 'let n = use "./lib";\ncall("echo", "second", n);\n');
    await w.until(/second 10\n[\s\S]*exit 0; watching/);
    fs.writeFileSync(path.join(dir, 'lib.tn'), 'return 20;\n');
    await w.until(/second 20\n/);
    // a compile error is reported as `turn run` reports it, and watching goes on
    fs.writeFileSync(path.join(dir, 'main.tn'), 'let x = ;\n');
    await w.until(/main\.tn:1:9: syntax error[\s\S]*exit 2; watching/);
  } finally {
    assert.equal(await w.stop(), 130, w.output());
  }
});

test('turn test --watch replays recordings: --record or --update with it is refused', () => {
  for (const flag of ['--record', '--update']) {
    const r = turn(['test', '--watch', flag, 'examples']);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /^turn: --watch replays the recordings: record them first with `turn test --record`, then watch\n/);
  }
});

test('turn test --watch runs the tests again when a test file under PATHS is saved', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-watch-test-'));
  fs.mkdirSync(path.join(dir, 'sub'));
  const testFile = path.join(dir, 'sub', 'a_test.tn');
  fs.writeFileSync(testFile, 'return { "one": turn() { call("assert_eq", 1, 1); } };\n');
  const w = watching(['test', '--watch', '.'], dir);
  try {
    await w.until(/1 passed, 0 failed[\s\S]*exit 0; watching/);
    fs.writeFileSync(testFile, 'return { "one": turn() { call("assert_eq", 1, 2); } };\n');
    await w.until(/0 passed, 1 failed[\s\S]*exit 1; watching/);
  } finally {
    assert.equal(await w.stop(), 130, w.output());
  }
});
