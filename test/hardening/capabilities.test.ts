// The files capability against a world that changes under it: a file swapped for a symlink, an
// intermediate folder swapped for a symlink while the host works (another thread does the swapping,
// so the race is real), symlinks that leave the roots and come back, the process's own /proc
// entries and the secrets file under a wide --allow-read, and the knowledge store, which needs a
// grant like any other file the program makes the host write.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { readFileEffect, writeFileEffect, listDirEffect, existsEffect } from '../../runtime/effects/fs.js';
import { EffectDenied } from '../../runtime/effects/capabilities.js';
import { buildHost } from '../../runtime/run/host.js';
import { fsList, fsRead, fsWrite } from '../../runtime/effects/tools.js';
import { MemoryVault } from '../../runtime/effects/vault.js';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-hardening-caps-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));

let counter = 0;
/** A fresh root with an `outside` folder beside it. */
function layout(): { root: string; outside: string } {
  const dir = path.join(base, `case${counter++}`);
  const root = path.join(dir, 'root');
  const outside = path.join(dir, 'outside');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(outside);
  return { root, outside };
}

/**
 * Swaps `target` in a worker thread (a real concurrent swapper, not an interleaving of this
 * thread's awaits) until the returned stop function is called:
 *  - `file`: between a regular file holding `text` and a symlink to `outside` (atomic renames);
 *  - `dir`: between the folder it is and a symlink to the folder `outside`.
 */
interface Swapper {
  /** swaps done so far (read while it runs: the callers work until both they and it did enough) */
  count(): number;
  stop(): Promise<number>;
}

function swapper(swap: { mode: 'file' | 'dir'; target: string; outside: string; text?: string }): Swapper {
  const flag = new SharedArrayBuffer(8); // [0]: stop, [1]: swaps done
  const worker = new Worker(
    `
    const { workerData, parentPort } = require('node:worker_threads');
    const fs = require('node:fs');
    const shared = new Int32Array(workerData.flag);
    const { mode, target, outside, text } = workerData;
    const tmp = target + '.swap';
    const stash = target + '.stash';
    let n = 0;
    while (Atomics.load(shared, 0) === 0) {
      try {
        if (mode === 'file') {
          fs.rmSync(tmp, { force: true });
          if (n % 2 === 0) fs.symlinkSync(outside, tmp);
          else fs.writeFileSync(tmp, text);
          fs.renameSync(tmp, target);
        } else if (n % 2 === 0) {
          fs.renameSync(target, stash);
          fs.symlinkSync(outside, target);
        } else {
          fs.unlinkSync(target);
          fs.renameSync(stash, target);
        }
      } catch {}
      n++;
      Atomics.store(shared, 1, n);
    }
    if (mode === 'dir' && fs.existsSync(stash)) {
      fs.unlinkSync(target);
      fs.renameSync(stash, target);
    }
    parentPort.postMessage(n);
    `,
    { eval: true, workerData: { flag, ...swap } },
  );
  const swapped = new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const shared = new Int32Array(flag);
  return {
    count: () => Atomics.load(shared, 1),
    stop: async () => {
      Atomics.store(shared, 0, 1);
      const n = await swapped;
      await worker.terminate();
      return n;
    },
  };
}

/** Swaps the callers wait for before they stop (the swapper is a thread: on a busy machine it may start late). */
const ENOUGH_SWAPS = 200;

/** `promise`, or a failure after `ms` (calling `unblock` so nothing stays stuck). */
async function within<T>(promise: Promise<T>, ms: number, unblock: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      unblock();
      reject(new Error(`still waiting after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

test('a file swapped for a symlink out of the root while 2,000 reads run: no read returns the outside file', async () => {
  const { root, outside } = layout();
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE');
  const target = path.join(root, 'f.txt');
  fs.writeFileSync(target, 'INSIDE');
  const ctx = { capabilities: { files: [{ roots: [root], mode: 'read' as const }] }, cwd: root };
  const swaps = swapper({ mode: 'file', target, outside: path.join(outside, 'secret.txt'), text: 'INSIDE' });
  let escapes = 0;
  let inside = 0;
  let reads = 0;
  try {
    // at least 2,000 reads, and on until the swapper has swapped enough times while they ran
    for (; reads < 2000 || swaps.count() < ENOUGH_SWAPS; reads++) {
      try {
        const text = await readFileEffect('f.txt', ctx);
        if (text.includes('OUTSIDE')) escapes++;
        else if (text === 'INSIDE') inside++;
      } catch {
        // refused or gone mid-swap: both fine
      }
    }
  } finally {
    const n = await swaps.stop();
    assert.ok(n >= ENOUGH_SWAPS, `the swapper ran (${n} swaps)`);
  }
  assert.equal(escapes, 0, `${escapes} of ${reads} reads returned the file outside the root`);
  assert.ok(inside > 0, 'some reads saw the file inside');
});

test('an intermediate folder swapped for a symlink out of the root while 1,000 writes and 1,000 reads run: nothing lands or is read outside', async () => {
  const { root, outside } = layout();
  const sub = path.join(root, 'sub');
  fs.mkdirSync(sub);
  fs.writeFileSync(path.join(sub, 'data.txt'), 'INSIDE');
  fs.writeFileSync(path.join(outside, 'data.txt'), 'OUTSIDE');
  const ctx = { capabilities: { files: [{ roots: [root], mode: 'write' as const }] }, cwd: root };
  const swaps = swapper({ mode: 'dir', target: sub, outside });
  let readEscapes = 0;
  let written = 0;
  try {
    for (let i = 0; i < 1000 || swaps.count() < ENOUGH_SWAPS; i++) {
      try {
        await writeFileEffect('sub/out.txt', `write ${i}`, ctx);
        written++;
      } catch {
        // refused mid-swap
      }
      try {
        if ((await readFileEffect('sub/data.txt', ctx)).includes('OUTSIDE')) readEscapes++;
      } catch {
        // refused mid-swap
      }
    }
  } finally {
    const n = await swaps.stop();
    assert.ok(n >= ENOUGH_SWAPS, `the swapper ran (${n} swaps)`);
  }
  const landed = path.join(outside, 'out.txt');
  assert.equal(fs.existsSync(landed), false, `a write landed outside the root: ${fs.existsSync(landed) ? fs.readFileSync(landed, 'utf8') : ''}`);
  assert.equal(readEscapes, 0, `${readEscapes} reads returned the file outside the root`);
  assert.ok(written > 0 && fs.existsSync(path.join(sub, 'out.txt')), 'writes while the folder was itself went through');
});

test('a path whose components leave the roots and come back is refused, for every file effect', async () => {
  const { root, outside } = layout();
  fs.mkdirSync(path.join(root, 'target'));
  fs.writeFileSync(path.join(root, 'target', 'f.txt'), 'inside, reached through outside');
  fs.symlinkSync(outside, path.join(root, 'away'));
  fs.symlinkSync(path.join(root, 'target'), path.join(outside, 'back'));
  const ctx = { capabilities: { files: [{ roots: [root], mode: 'write' as const }] }, cwd: root };
  const denied = (e: unknown) => e instanceof EffectDenied && /outside the allowed roots/.test(e.message);
  await assert.rejects(readFileEffect('away/back/f.txt', ctx), denied);
  await assert.rejects(writeFileEffect('away/back/g.txt', 'x', ctx), denied);
  await assert.rejects(listDirEffect('away/back', ctx), denied);
  await assert.rejects(existsEffect('away/back/f.txt', ctx), denied);
  assert.equal(fs.existsSync(path.join(root, 'target', 'g.txt')), false);
  // a symlink that stays inside the root is still followed
  fs.symlinkSync(path.join(root, 'target'), path.join(root, 'alias'));
  assert.equal(await readFileEffect('alias/f.txt', ctx), 'inside, reached through outside');
});

test('the last component swapped for a symlink is not followed on write; a FIFO is not waited on', async () => {
  const { root, outside } = layout();
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'untouched');
  const ctx = { capabilities: { files: [{ roots: [root], mode: 'write' as const }] }, cwd: root };
  fs.symlinkSync(path.join(outside, 'victim.txt'), path.join(root, 'w.txt'));
  await assert.rejects(writeFileEffect('w.txt', 'overwritten', ctx));
  assert.equal(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8'), 'untouched');
  if (process.platform !== 'win32') {
    const { execFileSync } = await import('node:child_process');
    const pipe = path.join(root, 'pipe');
    execFileSync('mkfifo', [pipe]);
    // a FIFO nobody writes to: a read that opens it would wait forever (unblocked here after 5 s)
    const unblockReader = () => fs.open(pipe, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK, (err, fd) => (err ? undefined : fs.close(fd, () => undefined)));
    await assert.rejects(within(readFileEffect('pipe', ctx), 5000, unblockReader), /is not a file/);
    const unblockWriter = () => fs.open(pipe, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK, (err, fd) => (err ? undefined : setTimeout(() => fs.close(fd, () => undefined), 100)));
    await assert.rejects(within(writeFileEffect('pipe', 'x', ctx), 5000, unblockWriter), /is not a file/);
  }
});

test('this process\'s /proc entries and /dev/fd are never readable, whatever --allow-read says', { skip: process.platform !== 'linux' }, async () => {
  const ctx = { capabilities: { files: [{ roots: ['/'], mode: 'read' as const }] }, cwd: '/' };
  const refused = (e: unknown) => e instanceof EffectDenied;
  for (const p of ['/proc/self/environ', '/proc/thread-self/environ', `/proc/${process.pid}/environ`, `/proc/${process.pid}/task/${process.pid}/environ`, '/dev/fd/0', '/proc/self/fd', '/proc/self/cmdline', '/dev/stdin']) {
    await assert.rejects(readFileEffect(p, ctx), refused, `${p} is readable`);
  }
  await assert.rejects(listDirEffect('/proc/self', ctx), refused);
  await assert.rejects(listDirEffect('/dev/fd', ctx), refused);
  // other /proc files stay readable under the grant
  assert.match(await readFileEffect('/proc/version', ctx), /Linux/);
});

test('the --secrets file is not readable through the fs tools, by its path, through a symlink or a hard link, even with its folder granted', async () => {
  const { root } = layout();
  const secrets = path.join(root, 'secrets.env');
  fs.writeFileSync(secrets, 'DEPLOY=tn-file-secret-77aa\n', { mode: 0o600 });
  fs.chmodSync(secrets, 0o600);
  fs.symlinkSync(secrets, path.join(root, 'alias.txt'));
  fs.linkSync(secrets, path.join(root, 'hardlink.txt'));
  fs.writeFileSync(path.join(root, 'ok.txt'), 'readable');
  const setup = await buildHost({ cwd: root, env: {}, authority: { allowRead: [root], allowWrite: [path.join(root, 'w')], secretsFile: secrets } });
  try {
    const tool = (name: string, ...args: unknown[]) => setup.host.tool!({ name, args: [null, ...args], pid: 1 });
    for (const p of [secrets, 'secrets.env', 'alias.txt', 'hardlink.txt', `./w/../secrets.env`]) {
      await assert.rejects(tool('fs_read', p), (e: Error) => e instanceof EffectDenied && !e.message.includes('tn-file-secret'), `${p} is readable`);
    }
    assert.equal(await tool('fs_read', 'ok.txt'), 'readable');
  } finally {
    setup.close();
  }
});

test('the knowledge store needs a grant: without write access to the store folder a kb tool is refused and nothing is created', async () => {
  const { root } = layout();
  const store = path.join(root, 'store');
  const denied = await buildHost({ cwd: root, env: { TURN_STORE_DIR: store }, authority: {} });
  try {
    await assert.rejects(
      denied.host.tool!({ name: 'kb_put', args: ['material', { text: 'a note', fields: { source: 'a test' } }], pid: 1 }),
      (e: Error) => e instanceof EffectDenied && /knowledge store/.test(e.message) && e.message.includes(store),
    );
    assert.equal(fs.existsSync(store), false, 'the store folder was not created');
  } finally {
    denied.close();
  }
  const readOnly = await buildHost({ cwd: root, env: { TURN_STORE_DIR: store }, authority: { allowRead: [root] } });
  try {
    await assert.rejects(readOnly.host.tool!({ name: 'kb_find', args: [{}], pid: 1 }), EffectDenied);
    assert.equal(fs.existsSync(store), false);
  } finally {
    readOnly.close();
  }
  const granted = await buildHost({ cwd: root, env: { TURN_STORE_DIR: store }, authority: { allowWrite: [store] } });
  try {
    const o = (await granted.host.tool!({ name: 'kb_put', args: ['material', { text: 'a note', fields: { source: 'a test' } }], pid: 1 })) as { id: string };
    assert.match(o.id, /^material\//);
    assert.ok(fs.existsSync(path.join(store, 'knowledge.db')));
  } finally {
    granted.close();
  }
});

test('a capability map cannot narrow to a symlinked folder and so widen to where it points', async () => {
  const { root, outside } = layout();
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE');
  fs.symlinkSync(outside, path.join(root, 'link'));
  const tctx = { vault: new MemoryVault({}), capabilities: { files: [{ roots: [root], mode: 'write' as const }] }, cwd: root };
  await assert.rejects(fsRead(tctx, { files: { read: ['link'] } }, 'link/secret.txt'), EffectDenied);
  await assert.rejects(fsWrite(tctx, { files: { write: ['link'] } }, 'link/new.txt', 'x'), EffectDenied);
  await assert.rejects(fsList(tctx, { files: { read: ['link'] } }, 'link'), EffectDenied);
  assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false);
});
