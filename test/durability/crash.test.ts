// The crash harness (issue 5): a program that uses `infer`, a tool (a non-idempotent append and an
// idempotent read), `send`/`receive`, the clock and `suspend` is crashed at every journal write k,
// before it, after its commit and between the two (the write joined the open group commit, which
// is lost: issue 17), in each of its two OS processes (the run up to `suspend;`, then the resume),
// and once its completion is committed. Each crashed run is resumed (an unknown append is settled
// the way an operator would: by looking at the file) until it is done, and must end with the
// uncrashed run's result, asking the model exactly the prompts whose replies the crash left
// unrecorded (so a recorded reply is never asked twice, and none more than once again), and with
// the append run exactly once.
//
// Its cost (issue 28: once five minutes per driver, each crash point a run killed with SIGKILL and
// re-run from the start): the uncrashed run takes, at every crash point, the image a SIGKILL there
// would leave (`TURN_CRASH_IMAGES`, runtime/durable/index.ts: a copy of its working directory, the
// store and the file it appends to), so crashing costs no process. Each image is put back where the
// run lives (a run's grants resolve in the folder it started in) and resumed; byte-identical images
// are resumed once (a resume sees nothing but these files and the model's answers, which depend on
// the prompt alone). Every point is covered on every driver. That an image is what a real SIGKILL
// leaves is checked at the points around the append, and at the resume's last commit, against a
// run killed there by `TURN_CRASH_AT`. No sleeps: every wait is on a child process's exit.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStoreFile } from '../../runtime/store/index.js';
import { countingModel, runIdOf, turnAsync, type Run } from './helpers.js';

const PROGRAM = `
let fs = use "std/fs";
let me = call("self");
let kid = spawn turn() { let m = receive; send m, "pong"; };
send kid, me;
let a = infer Str { "first question"; };
fs.append(null, "out/log.txt", "A\\n");
let t = call("now");
suspend;
let r = receive;
let b = infer Str { "second question about " + a; };
let text = fs.read(null, "out/log.txt");
return {"a": a, "b": b, "r": r, "log": text};
`;

const DRIVERS = process.env.TURN_STORE_DRIVER ? [process.env.TURN_STORE_DRIVER] : ['', 'node-sqlite3-wasm'];

/** One crash image: the OS process it was taken in (1: the run, 2: its resume), its point (`3-before`, `4-after`, `done`), its folder. */
interface Image {
  phase: 1 | 2;
  point: string;
  dir: string;
}

/** The images of one process, in the order they were taken. */
function imagesIn(dir: string, phase: 1 | 2): Image[] {
  return fs
    .readdirSync(dir)
    .map((name) => ({ n: Number(name.split('-')[0]), name }))
    .sort((x, y) => x.n - y.n)
    .map(({ name }) => ({ phase, point: name.slice(name.indexOf('-') + 1), dir: path.join(dir, name) }));
}

/** Every file under `dir`, relative path and bytes, in a stable order. */
function filesOf(dir: string, base = dir): [string, Buffer][] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((x, y) => (x.name < y.name ? -1 : 1))
    .flatMap((e) => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? filesOf(full, base) : [[path.relative(base, full), fs.readFileSync(full)] as [string, Buffer]];
    });
}

function hashOf(dir: string): string {
  const h = createHash('sha256');
  for (const [name, bytes] of filesOf(dir)) h.update(`${name}\0${bytes.length}\0`).update(bytes);
  return h.digest('hex');
}

/** What a crashed folder's store holds for the run, read from a copy (opening a store recovers its WAL: the folder stays as the crash left it). */
function journalOf(dir: string, id: string): { steps: string[]; replies: number; status: string } {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-crash-read-'));
  try {
    fs.cpSync(path.join(dir, 'st'), scratch, { recursive: true });
    dropLock(scratch);
    const store = openStoreFile(path.join(scratch, 'store.db'));
    try {
      const entries = store.readJournal(id);
      return {
        steps: entries.map((e) => `${e.seq} ${e.kind} ${e.name} ${e.status}`),
        replies: entries.filter((e) => e.kind === 'infer' && e.status === 'ok').length,
        status: store.getRun(id)?.status ?? 'none',
      };
    } finally {
      store.close();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const logIn = (dir: string): string => {
  const log = path.join(dir, 'out', 'log.txt');
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
};

/**
 * Drops the lock folder a crashed writer leaves beside its store (runtime/store/writer-lock.ts). A
 * writer takes over a lock whose note names a process that is gone, but an image is resumed minutes
 * after the process it names ended, and a busy machine may have given its pid to another process by
 * then (pid_max is 32768 here). The takeover itself is tested where a killed run is resumed at once
 * (test/store/drivers.test.ts, output.test.ts).
 */
const dropLock = (store: string): void => fs.rmSync(path.join(store, 'store.db.lock'), { recursive: true, force: true });

/** Makes `dir` hold exactly what `image` holds (but the dead writer's lock). */
function restore(image: string, dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(image, dir, { recursive: true });
  dropLock(path.join(dir, 'st'));
}

// the drivers run side by side: each has its own folders and model servers, and its children are one at a time
describe('crash harness', { concurrency: true }, () => {
  for (const driver of DRIVERS) test(`crash at every journal write, before it, after its commit and between the two: the result is the uncrashed one, exactly the unrecorded replies asked again, the append once (${driver || 'default driver'})`, { timeout: 1_200_000 }, async () => {
    const started = Date.now();
    const env = { TURN_STORE_DRIVER: driver }; // every `turn` this test starts uses it
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-crash-'));
    const dir = path.join(scratch, 'run'); // where the run lives, and where every image is resumed
    const fresh = (): void => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, 'out'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
    };
    fresh();
    const flags = ['--store', path.join(dir, 'st')];
    const run = (extra: NodeJS.ProcessEnv, spec: string) =>
      turnAsync(['run', 'p.tn', ...flags, '--model', spec, '--allow-write', 'out', '--allow-read', 'out'], dir, { ...env, ...extra });
    // a resume names its model (it overrides the one the run recorded): each crash is counted by its own
    const resume = (id: string, spec: string, extra: NodeJS.ProcessEnv = {}) => turnAsync(['resume', id, ...flags, '--json', '--model', spec], dir, { ...env, ...extra });
    const settled = { ran: 0, retried: 0 };

    /** Resumes until done; settles an unknown append by looking at the file. */
    async function finish(id: string, spec: string): Promise<{ result: unknown; last: Run }> {
      for (let i = 0; i < 6; i++) {
        const r = await resume(id, spec);
        if (r.code === 3) {
          const step = /unknown: step (\d+) \(tool `fs_append`/.exec(r.stderr);
          assert.ok(step, `only the append may be unknown and waiting: ${r.stderr}`);
          const ran = logIn(dir).includes('A');
          if (ran) settled.ran++;
          else settled.retried++;
          const s = await turnAsync(['resolve', id, step[1], ...(ran ? ['--ok', 'null'] : ['--retry']), ...flags], dir, env);
          assert.equal(s.code, 0, s.stderr);
          continue;
        }
        assert.equal(r.code, 0, r.stderr);
        if (/suspended: /.test(r.stderr)) continue;
        return { result: JSON.parse(r.stdout.trim().split('\n').pop()!), last: r };
      }
      throw new Error('the run did not finish');
    }

    const model = await countingModel();
    try {
      // the uncrashed run, taking an image at every crash point of each of its two processes
      const shots = [path.join(scratch, 'images-1'), path.join(scratch, 'images-2')];
      const first = await run({ TURN_CRASH_IMAGES: shots[0] }, model.spec);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /suspended: /);
      const id = runIdOf(first.stderr);
      const suspended = path.join(scratch, 'suspended');
      fs.cpSync(dir, suspended, { recursive: true });
      const second = await resume(id, model.spec, { TURN_CRASH_IMAGES: shots[1] });
      assert.equal(second.code, 0, second.stderr);
      assert.doesNotMatch(second.stderr, /suspended: /);
      const base = JSON.parse(second.stdout.trim().split('\n').pop()!) as { log: string };
      const prompts = model.asked();
      assert.equal(prompts.length, 2);
      assert.equal(base.log, 'A\n');
      const images = [...imagesIn(shots[0], 1), ...imagesIn(shots[1], 2)];
      const points = (phase: 1 | 2) => images.filter((i) => i.phase === phase).map((i) => i.point);
      // before and between at every write, after at each commit (the last write of its group), and the completion
      for (const phase of [1, 2] as const) {
        const writes = points(phase).filter((p) => p.endsWith('-before')).length;
        assert.ok(writes >= (phase === 1 ? 5 : 4), `phase ${phase}: ${points(phase).join(' ')}`);
        for (let k = 1; k <= writes; k++) {
          assert.ok(points(phase).includes(`${k}-before`) && points(phase).includes(`${k}-uncommitted`), `phase ${phase}, write ${k}: ${points(phase).join(' ')}`);
        }
        assert.ok(points(phase).includes(`${writes}-after`), `phase ${phase} ends with a commit: ${points(phase).join(' ')}`);
      }
      assert.equal(points(2).at(-1), 'done');

      // an image is what a SIGKILL there leaves: the journal's steps and the appended file match a run really killed
      // there, at the three points around the append's outcome (the append ran, its outcome is not durable) and
      // at the resume's last commit
      const outcome = images.find((i) => i.phase === 1 && i.point.endsWith('-before') && logIn(i.dir).includes('A'));
      assert.ok(outcome, 'an image holds the append done and its outcome not yet written');
      const k = Number(outcome.point.split('-')[0]);
      const commitOf = points(1).find((p) => p.endsWith('-after') && Number(p.split('-')[0]) >= k)!;
      const kills: { image: Image; crash: string }[] = [
        { image: outcome, crash: `${k}:before` },
        { image: images.find((i) => i.phase === 1 && i.point === `${k}-uncommitted`)!, crash: `${k}:uncommitted` },
        { image: images.find((i) => i.phase === 1 && i.point === commitOf)!, crash: `${k}:after` },
        { image: images.filter((i) => i.phase === 2 && i.point.endsWith('-after')).at(-1)!, crash: `${points(2).filter((p) => p.endsWith('-after')).at(-1)!.split('-')[0]}:after` },
      ];
      for (const { image, crash } of kills) {
        const own = await countingModel();
        try {
          let killed: Run;
          if (image.phase === 1) {
            fresh();
            killed = await run({ TURN_CRASH_AT: crash }, own.spec);
          } else {
            restore(suspended, dir);
            killed = await resume(id, own.spec, { TURN_CRASH_AT: crash });
          }
          assert.equal(killed.signal, 'SIGKILL', `phase ${image.phase}, ${crash}: ${killed.stderr}`);
          const killedId = image.phase === 1 ? runIdOf(killed.stderr) : id;
          const real = journalOf(dir, killedId);
          const shot = journalOf(image.dir, id);
          assert.deepEqual(real, shot, `phase ${image.phase}, ${crash}: the image ${image.point} holds what the kill left`);
          assert.equal(logIn(dir), logIn(image.dir), `phase ${image.phase}, ${crash}: the appended file`);
        } finally {
          await own.server.close();
        }
      }

      // resume each distinct image until done (byte-identical images: the first one stands for all)
      const distinct = new Map<string, Image[]>();
      for (const image of images) {
        const h = hashOf(image.dir);
        distinct.set(h, [...(distinct.get(h) ?? []), image]);
      }
      for (const [first, ...same] of distinct.values()) {
        const what = `phase ${first.phase}, crash at ${first.point}${same.length ? ` (and ${same.map((i) => `${i.phase}:${i.point}`).join(', ')})` : ''}`;
        const recorded = journalOf(first.dir, id).replies;
        restore(first.dir, dir);
        const own = await countingModel();
        try {
          const end = await finish(id, own.spec);
          assert.deepEqual(end.result, base, `${what}: the same result as the uncrashed run`);
          assert.deepEqual(own.asked(), prompts.slice(recorded), `${what}: asked exactly the prompts without a recorded reply (${recorded} recorded)`);
          assert.equal(logIn(dir), 'A\n', `${what}: the append ran exactly once`);
        } finally {
          await own.server.close();
        }
      }
      // the crash between the append and its durable outcome leaves it unknown, with the file saying it ran, and
      // before the append ran, with an intent already durable, unknown with the file saying it did not
      assert.ok(settled.ran >= 1 && settled.retried >= 1, `unknown appends settled: ${JSON.stringify(settled)}`);
      process.stdout.write(
        `# crash harness (${driver || 'default driver'}): ${images.length} crash points (${points(1).length} + ${points(2).length}), ${distinct.size} distinct images resumed, ${kills.length} real kills matched, unknown appends settled ${settled.ran} as done and ${settled.retried} retried, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    } finally {
      await model.server.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
