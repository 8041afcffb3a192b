// The crash harness (issue 5): a program that uses `infer`, a tool (a non-idempotent append and an
// idempotent read), `send`/`receive`, the clock and `suspend` is killed with SIGKILL at every
// journal write k, before and after the write, in each of its two OS processes (the run up to
// `suspend;`, then the resume). Each crashed run is resumed (an unknown append is settled the way
// an operator would: by looking at the file) until it is done, and must end with the uncrashed
// run's result, without a recorded model reply asked twice, and with the append run at most once.
// Journal writes are group-committed (issue 17): "after" a write means once the commit that holds
// it is durable, and a third point, "uncommitted", kills the process after the write joined the
// open group but before its commit — the write is lost, so whatever it recorded must not have been
// acted on (no effect run, no result delivered): the append still runs exactly once.
// The harness runs once per store driver: the default one here (better-sqlite3 on Node 20) and
// node-sqlite3-wasm, the packaged extension's on Node 20 (TURN_STORE_DRIVER names one to run alone).
// Its cost (issue 28: six minutes per driver on a busy machine) is kept down without losing what
// it proves. Crash points are chosen per driver from the commits of the uncrashed run
// (TURN_JOURNAL_TRACE: the last write of each group commit): `after` a write is taken only at the
// last write of its group, since `after` any write of a group kills at that group's commit, the same
// moment; the default driver then takes `before` and `uncommitted` at every write, and another
// driver only `uncommitted` at the last write of each group, and in phase 1 only, since what a
// driver adds is whether a commit survives and an open transaction vanishes (the points between
// writes exercise the journal protocol, which is the same code on every driver; phase 2's commits
// are of the kinds phase 1 makes, and each phase-1 crash is finished by two resumes that read
// them back). The phase-2 crashes share one
// fixture: the run is taken to its `suspend;` once, and each crash resumes its own copy of that
// store (with its own counting model, named on the resume), instead of running phase 1 again. No
// sleeps: every wait is on a child process's exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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

interface Scenario {
  phase: 1 | 2;
  k: number;
  when: 'before' | 'after' | 'uncommitted';
}

const DRIVERS = process.env.TURN_STORE_DRIVER ? [process.env.TURN_STORE_DRIVER] : ['', 'node-sqlite3-wasm'];

for (const driver of DRIVERS) test(`crash at every journal write, before it, after its commit and between the two: the result is the uncrashed one, no reply asked twice, the append at most once (${driver || 'default driver'})`, { timeout: 1_200_000 }, async () => {
  const outer = process.env.TURN_STORE_DRIVER;
  process.env.TURN_STORE_DRIVER = driver; // every `turn` this test starts uses it
  const model = await countingModel();
  const started = Date.now();
  const setup = (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-crash-'));
    fs.mkdirSync(path.join(dir, 'out'));
    fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
    return dir;
  };
  const flags = (dir: string) => ['--store', path.join(dir, 'st')];
  const run = (dir: string, env: NodeJS.ProcessEnv = {}, spec = model.spec) =>
    turnAsync(['run', 'p.tn', ...flags(dir), '--model', spec, '--allow-write', 'out', '--allow-read', 'out'], dir, env);
  // a resume may name the model (it then overrides the one the run recorded): a copied fixture's run recorded the fixture's
  const resume = (dir: string, id: string, env: NodeJS.ProcessEnv = {}, spec?: string) =>
    turnAsync(['resume', id, ...flags(dir), '--json', ...(spec ? ['--model', spec] : [])], dir, env);

  /** Resumes until done; settles an unknown append by looking at the file. Returns the result and how many unknowns it saw. */
  async function finish(dir: string, id: string, spec?: string, env: NodeJS.ProcessEnv = {}): Promise<{ result: unknown; unknown: number; last: Run }> {
    let unknown = 0;
    for (let i = 0; i < 6; i++) {
      const r = await resume(dir, id, i === 0 ? env : {}, spec);
      if (r.code === 3) {
        unknown++;
        const step = /unknown: step (\d+) \(tool `fs_append`/.exec(r.stderr);
        assert.ok(step, `only the append may be unknown and waiting: ${r.stderr}`);
        const log = path.join(dir, 'out', 'log.txt');
        const ran = fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('A');
        const settle = ran ? ['--ok', 'null'] : ['--retry'];
        const s = await turnAsync(['resolve', id, step[1], ...settle, ...flags(dir)], dir);
        assert.equal(s.code, 0, s.stderr);
        continue;
      }
      assert.equal(r.code, 0, r.stderr);
      if (/suspended: /.test(r.stderr)) continue;
      return { result: JSON.parse(r.stdout.trim().split('\n').pop()!), unknown, last: r };
    }
    throw new Error('the run did not finish');
  }

  try {
    // the uncrashed run, and how many journal writes each of its processes makes
    const dir0 = setup();
    const traces = [path.join(dir0, 'trace-1'), path.join(dir0, 'trace-2')];
    const first = await run(dir0, { TURN_JOURNAL_TRACE: traces[0] });
    assert.equal(first.code, 0, first.stderr);
    const id0 = runIdOf(first.stderr);
    const inspect1 = JSON.parse((await turnAsync(['inspect', id0, ...flags(dir0), '--json', '--tail', '1000'], dir0)).stdout) as { journal: { status: string; kind: string }[] };
    const writes1 = inspect1.journal.reduce((n, e) => n + (e.kind === 'infer' || e.kind === 'tool' ? 2 : 1), 0);
    const base = await finish(dir0, id0, undefined, { TURN_JOURNAL_TRACE: traces[1] });
    const inspect2 = JSON.parse((await turnAsync(['inspect', id0, ...flags(dir0), '--json', '--tail', '1000'], dir0)).stdout) as { journal: { kind: string }[] };
    const writes2 = inspect2.journal.reduce((n, e) => n + (e.kind === 'infer' || e.kind === 'tool' ? 2 : 1), 0) - writes1;
    const asked0 = model.asked().length;
    assert.equal(asked0, 2);
    assert.deepEqual((base.result as { log: string }).log, 'A\n');
    assert.ok(writes1 >= 5 && writes2 >= 4, `writes: ${writes1} + ${writes2}`);

    // the last write of each group commit, per phase (the final group of a phase ends at its last write)
    const groupEnds = [writes1, writes2].map((writes, i) => {
      const ends = new Set(fs.readFileSync(traces[i], 'utf8').split('\n').filter(Boolean).map(Number));
      ends.add(writes);
      return ends;
    });
    const scenarios: Scenario[] = [];
    // another driver crashes phase 1 only: its commits are the kinds phase 2 makes (an intent, an
    // outcome), plus the snapshot's, and every phase-1 crash is finished by two resumes that read them
    // (the first driver of the list is the thorough one: the default, or the one TURN_STORE_DRIVER names alone)
    const thorough = driver === DRIVERS[0];
    for (const phase of thorough ? ([1, 2] as const) : ([1] as const)) {
      const ends = groupEnds[phase - 1];
      for (let k = 1; k <= (phase === 1 ? writes1 : writes2); k++) {
        if (thorough) scenarios.push({ phase, k, when: 'before' }, { phase, k, when: 'uncommitted' });
        else if (ends.has(k)) scenarios.push({ phase, k, when: 'uncommitted' });
        if (ends.has(k)) scenarios.push({ phase, k, when: 'after' });
      }
    }
    // the shared fixture of phase 2: a run at its suspend (its own model server, closed once it is there)
    const fixture = setup();
    const fixtureModel = await countingModel();
    const suspended = await run(fixture, {}, fixtureModel.spec).finally(() => fixtureModel.server.close());
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.match(suspended.stderr, /suspended: /);
    const fixtureId = runIdOf(suspended.stderr);
    const copyFixture = (): string => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-crash-'));
      fs.cpSync(fixture, dir, { recursive: true });
      return dir;
    };
    let unknowns = 0;
    const one = async (s: Scenario): Promise<void> => {
      const own = await countingModel(); // one model per scenario, to count its requests
      const crash = { TURN_CRASH_AT: `${s.k}:${s.when}` };
      let id: string;
      let dir: string;
      if (s.phase === 1) {
        dir = setup();
        const killed = await run(dir, crash, own.spec);
        assert.equal(killed.signal, 'SIGKILL', `phase 1, write ${s.k} ${s.when}: ${killed.stderr}`);
        id = runIdOf(killed.stderr);
      } else {
        dir = copyFixture();
        id = fixtureId;
        const killed = await resume(dir, id, crash, own.spec);
        assert.equal(killed.signal, 'SIGKILL', `phase 2, write ${s.k} ${s.when}: ${killed.stderr}`);
      }
      const end = await finish(dir, id, own.spec).finally(() => own.server.close());
      unknowns += end.unknown;
      const what = `phase ${s.phase}, crash ${s.when} write ${s.k}`;
      assert.deepEqual(end.result, base.result, `${what}: the same result as the uncrashed run`);
      // every prompt is asked once, plus at most once more when the crash fell between its request and its recorded reply
      const mine = own.server.received.length;
      assert.ok(mine <= asked0 + 1, `${what}: ${mine} model requests`);
      assert.equal(fs.readFileSync(path.join(dir, 'out', 'log.txt'), 'utf8'), 'A\n', `${what}: the append ran exactly once`);
    };
    // two scenarios at a time (the model server lives here; each scenario has its own store)
    for (let i = 0; i < scenarios.length; i += 2) await Promise.all(scenarios.slice(i, i + 2).map(one));
    assert.ok(unknowns >= 2, 'the crash points between the append and its recorded outcome surface as unknown');
    process.stdout.write(
      `# crash harness (${driver || 'default driver'}): ${scenarios.length} crash points (${writes1} + ${writes2} writes in ${groupEnds[0].size} + ${groupEnds[1].size} commits), ${unknowns} unknown outcomes settled, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    await model.server.close();
    if (outer === undefined) delete process.env.TURN_STORE_DRIVER;
    else process.env.TURN_STORE_DRIVER = outer;
  }
});
