// A resume that asks an effect again says so on stderr, naming the step, the call and why (issue
// 40): a model call whose reply was never recorded costs another call and may answer otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from '../cli/run-cli.js';
import { fakeServer } from '../providers/fake-server.js';
import { countingModel, runIdOf, turnAsync } from './helpers.js';

function workdir(program: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-resume-note-'));
  fs.mkdirSync(path.join(dir, 'out'));
  fs.writeFileSync(path.join(dir, 'p.tn'), program);
  return dir;
}

test('a model call interrupted before its reply is asked again, and the resume says so', async () => {
  const dir = workdir('let a = infer Str { "a haiku"; };\nreturn a;\n');
  // the first run's model never answers: the run is interrupted (SIGINT) once the request arrives
  let child: ChildProcess | undefined;
  const hanging = await fakeServer(() => {
    child?.kill('SIGINT');
    return { hang: true };
  });
  const spec = (url: string) => `openai:gpt-test?base_url=${url}/v1&api_key_env=TURN_TEST_KEY&retries=0`;
  try {
    child = spawn(process.execPath, [BIN, 'run', 'p.tn', '--store', 'st', '--model', spec(hanging.url)], { cwd: dir, env: { ...process.env, TURN_TEST_KEY: 'k' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child!.on('close', (c) => resolve(c)));
    assert.equal(code, 130, stderr);
    const id = runIdOf(stderr);
    const model = await countingModel();
    try {
      const resumed = await turnAsync(['resume', id, '--store', 'st', '--json', '--model', model.spec], dir);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /^turn: note: step 1: infer `Str` is asked again: the run stopped before its outcome was recorded$/m);
      assert.equal(model.asked().length, 1);
      // a second resume of the finished run asks nothing again
      const again = await turnAsync(['resume', id, '--store', 'st', '--model', model.spec], dir);
      assert.doesNotMatch(again.stderr, /asked again/);
    } finally {
      await model.server.close();
    }
  } finally {
    await hanging.close();
  }
});

test('an effect `turn resolve --retry` chose to run again is named as such', async () => {
  const dir = workdir('let fs = use "std/fs";\nfs.append(null, "out/log.txt", "A");\nreturn 1;\n');
  // killed after the append's intent: a non-idempotent effect with an unknown outcome
  const killed = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-write', 'out'], dir, { TURN_CRASH_AT: '1:after' });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const id = runIdOf(killed.stderr);
  const waiting = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(waiting.code, 3, waiting.stderr);
  const step = /unknown: step (\d+)/.exec(waiting.stderr)![1];
  assert.equal((await turnAsync(['resolve', id, step, '--retry', '--store', 'st'], dir)).code, 0);
  const done = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stderr, new RegExp(`^turn: note: step ${step}: tool \`fs_append\` is asked again: \`turn resolve --retry\` chose to run it again$`, 'm'));
});
