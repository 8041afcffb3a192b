// Other processes' /proc entries under a wide --allow-read (issue 28, item 1): a program could read
// `/proc/<parent pid>/environ` — the shell's API keys, a short `TURN_SECRET_PIN` no redaction
// catches, another worker's key — because only this process's own entries were refused. Every
// per-process entry of every process is now refused, by path, by real path (a symlink into /proc,
// /proc/self under other names) and on a procfs mounted elsewhere, checked on what was opened.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileEffect, listDirEffect, existsEffect } from '../../runtime/effects/fs.js';
import { EffectDenied } from '../../runtime/effects/capabilities.js';
import { turn } from '../cli/run-cli.js';

const linux = process.platform === 'linux';
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-hardening-proc-')));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(base, { recursive: true, force: true });
});

const SECRET = 'tn-other-process-secret-5b1f';

/** Another process with a secret in its environment and its command line, alive until the tests end. */
async function otherProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', `setTimeout(() => {}, 600000); process.stdout.write("up\\n")`, SECRET], {
    env: { ...process.env, OTHER_WORKER_KEY: SECRET, TURN_SECRET_PIN: '48213' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return child.pid!;
}

const refused = (e: unknown) => e instanceof EffectDenied && /never granted/.test(e.message);

test('another process\'s /proc entries are never readable, whatever --allow-read says', { skip: !linux }, async () => {
  const pid = await otherProcess();
  assert.match(fs.readFileSync(`/proc/${pid}/environ`, 'latin1'), /OTHER_WORKER_KEY/, 'the test itself can read it (it is the same user)');
  const ctx = { capabilities: { files: [{ roots: ['/'], mode: 'read' as const }] }, cwd: '/' };
  const tid = fs.readdirSync(`/proc/${pid}/task`)[0];
  for (const p of [
    `/proc/${pid}/environ`,
    `/proc/${pid}/cmdline`,
    `/proc/${pid}/task/${tid}/environ`,
    `/proc/${process.ppid}/environ`,
    `/proc/${pid}/root/proc/${pid}/environ`,
    `/proc/1/root/proc/${pid}/environ`,
    `/proc/./${pid}/environ`,
    `/proc/${pid}/../${pid}/environ`,
  ]) {
    await assert.rejects(readFileEffect(p, ctx), refused, `${p} is readable`);
  }
  await assert.rejects(listDirEffect(`/proc/${pid}`, ctx), refused);
  await assert.rejects(existsEffect(`/proc/${pid}/environ`, ctx), refused);
  // a symlink in a granted folder that points into /proc is refused by its real path
  const dir = path.join(base, 'links');
  fs.mkdirSync(dir);
  fs.symlinkSync(`/proc/${pid}/environ`, path.join(dir, 'env.txt'));
  fs.symlinkSync(`/proc/${pid}`, path.join(dir, 'proc-dir'));
  fs.symlinkSync('/proc', path.join(dir, 'proc'));
  const narrow = { capabilities: { files: [{ roots: [dir, '/proc'], mode: 'read' as const }] }, cwd: dir };
  for (const p of ['env.txt', 'proc-dir/environ', `proc/${pid}/environ`, 'proc/self/environ']) {
    await assert.rejects(readFileEffect(p, narrow), refused, `${p} is readable`);
  }
  // /proc's own files stay readable, and listing /proc still works
  assert.match(await readFileEffect('/proc/version', ctx), /Linux/);
  assert.ok((await listDirEffect('/proc', ctx)).includes(String(pid)));
});

test('a program run with --allow-read /proc reads no other process\'s environment or command line', { skip: !linux }, async () => {
  const pid = await otherProcess();
  const file = path.join(base, 'peek.tn');
  fs.writeFileSync(
    file,
    `let fs = use "std/fs";
let tryread = turn(p: Str) -> Str {
    try { return fs.read(null, p); } catch (e) { return "DENIED " + e["message"]; }
};
call("echo", "parent: " + tryread("/proc/${process.pid}/environ"));
call("echo", "other: " + tryread("/proc/${pid}/environ"));
call("echo", "cmdline: " + tryread("/proc/${pid}/cmdline"));
call("echo", "version: " + call("str_contains", tryread("/proc/version"), "Linux"));
`,
  );
  const r = turn(['run', file, '--allow-read', '/proc']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, new RegExp(SECRET));
  assert.doesNotMatch(r.stdout + r.stderr, /48213/);
  assert.match(r.stdout, /^parent: DENIED .*another process/m);
  assert.match(r.stdout, /^other: DENIED .*another process/m);
  assert.match(r.stdout, /^cmdline: DENIED /m);
  assert.match(r.stdout, /^version: true$/m);
});
