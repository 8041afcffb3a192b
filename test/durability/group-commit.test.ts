// Group commit (issue 17): the journal writes that are ready together share one commit (one fsync),
// and nothing written is acted on outside the process before its commit: a non-idempotent effect
// runs only once its intent is committed, and its result reaches the program only once the result
// is committed; a local read's result (the clock, a file read) reaches the program at once and
// joins the next commit, which comes before anything the program does with it leaves the process. Observed on a real SQLite store by recording, at each commit, what the world looked like.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore, startRun, StoreError, type RunStore } from '../../runtime/index.js';
import { BETTER_SQLITE3, betterSqlite3Available, betterSqlite3Connection } from '../../runtime/store/better-sqlite3.js';
import { createRunWithBundle, SqliteRunStore, type SqlConnection } from '../../runtime/store/sqlite-schema.js';
import { MemoryRunStore } from '../../runtime/durable/travel.js';

/** A fresh folder holding the program `p.tn` (and an `out/` folder for its writes when asked). */
function programIn(source: string, withOut = false): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-group-'));
  if (withOut) fs.mkdirSync(path.join(dir, 'out'));
  fs.writeFileSync(path.join(dir, 'p.tn'), source);
  return dir;
}

interface Spied {
  store: RunStore;
  events: string[];
  commits: () => number;
  writes: () => number;
}

/** The store with its journal writes and its group commits recorded in order (`seen` is called at each commit). */
function spied(dir: string, seen: () => string = () => ''): Spied {
  const store = openStore(path.join(dir, 'st'));
  const events: string[] = [];
  let commits = 0;
  let writes = 0;
  const s = store as RunStore & { commitGroup(): void; beginGroup(): void };
  assert.equal(typeof s.commitGroup, 'function', 'the SQLite store commits in groups');
  const commit = s.commitGroup.bind(s);
  const append = s.appendJournal.bind(s);
  const complete = s.completeJournal.bind(s);
  let open = false;
  s.beginGroup = ((begin) => () => {
    open = true;
    begin();
  })(s.beginGroup.bind(s));
  s.commitGroup = () => {
    if (open) {
      commits++;
      events.push(`commit${seen()}`);
    }
    open = false;
    commit();
  };
  s.appendJournal = (run, e) => {
    writes++;
    events.push(`${e.status} ${e.name}`);
    return append(run, e);
  };
  s.completeJournal = (run, seq, status, payload) => {
    writes++;
    events.push(`${status} #${seq}`);
    complete(run, seq, status, payload);
  };
  return { store, events, commits: () => commits, writes: () => writes };
}

test('an effect runs only after its intent is committed, and the program sees its result only after that is committed', async () => {
  const dir = programIn('let fs = use "std/fs";\nfs.append(null, "out/log.txt", "A");\ncall("echo", "appended");\nreturn 1;\n', true);
  const log = path.join(dir, 'out', 'log.txt');
  const { store, events } = spied(dir, () => (fs.existsSync(log) ? ' (file written)' : ' (no file)'));
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store, authority: { allowWrite: ['out'] }, onOutput: (l) => events.push(`echo ${l}`) });
    assert.equal((await run.start()).kind, 'done');
    const i = events.indexOf('intent fs_append');
    assert.ok(i >= 0, events.join(', '));
    // the line is journaled (issue 26) and printed once that is committed, then marked shown in the last commit
    assert.deepEqual(
      events.slice(i),
      ['intent fs_append', 'commit (no file)', `ok #1`, 'commit (file written)', 'intent echo', 'commit (file written)', 'echo appended', 'ok #2', 'commit (file written)'],
      events.join(', '),
    );
    assert.equal(fs.readFileSync(log, 'utf8'), 'A');
  } finally {
    store.close();
  }
});

test('a local read\'s result reaches the program before its commit, and is committed before what the program does with it leaves the process', async () => {
  const dir = programIn('let fs = use "std/fs";\nlet t = call("time_now_ms");\nfs.append(null, "out/log.txt", "at " + t);\nlet u = call("time_now_ms");\ncall("echo", "then " + u);\nreturn 1;\n', true);
  const log = path.join(dir, 'out', 'log.txt');
  const { store, events } = spied(dir, () => (fs.existsSync(log) ? ' (file written)' : ' (no file)'));
  const printed: string[] = [];
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store, authority: { allowWrite: ['out'] }, onOutput: (l) => (printed.push(l), events.push('echo')) });
    assert.equal((await run.start()).kind, 'done');
    const i = events.indexOf('intent time_now_ms');
    assert.ok(i >= 0, events.join(', '));
    // the clock's intent and result, then the append's intent, all in the commit before the append
    // runs; the second read's result and the line's intent in the commit before the line prints
    assert.deepEqual(
      events.slice(i, i + 10),
      ['intent time_now_ms', 'ok #1', 'intent fs_append', 'commit (no file)', 'ok #2', 'commit (file written)', 'intent time_now_ms', 'ok #3', 'intent echo', 'commit (file written)'],
      events.join(', '),
    );
    assert.equal(events[i + 10], 'echo', events.join(', '));
    const journal = store.readJournal(run.id!);
    const times = journal.filter((e) => e.name === 'time_now_ms').map((e) => e.status);
    assert.deepEqual(times, ['ok', 'ok'], 'both reads are committed with their results');
    assert.match(fs.readFileSync(log, 'utf8'), /^at \d+$/);
    assert.match(printed[0] ?? '', /^then \d+$/);
  } finally {
    store.close();
  }
});

test('a loop of model and clock calls: each clock read shares the next model reply\'s commit, and each reply is committed before the program sees it', async () => {
  const steps = 300;
  const dir = programIn(`let i = 0;\nwhile i < ${steps} {\n  let x = infer Str { "step " + i; };\n  let t = call("time_now_ms");\n  let i = i + 1;\n}\nreturn i;\n`);
  const { store, events, commits, writes } = spied(dir);
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store, model: 'mock', onOutput: () => {} });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.equal(result.kind === 'done' && result.json, steps);
    // each call is an intent and a result: 4 writes a step; a commit per call would be 2 a step
    assert.ok(writes() >= 4 * steps, `${writes()} writes`);
    assert.ok(commits() <= steps + 2, `${commits()} commits for ${steps} steps`);
    // a model reply's commit comes before the next write: the program saw it only then
    const steady = events.slice(events.indexOf('intent time_now_ms'));
    let replies = 0;
    for (let k = 0; k < steady.length; k++) {
      if (steady[k] !== 'intent Str') continue;
      replies++;
      assert.match(steady[k + 1] ?? '', /^ok #/, steady.slice(k, k + 3).join(', '));
      assert.equal(steady[k + 2], 'commit', steady.slice(k, k + 3).join(', '));
    }
    assert.equal(replies, steps - 1);
    const journal = store.readJournal(run.id!);
    assert.equal(journal.filter((e) => e.kind === 'infer' && e.status === 'ok').length, steps);
    assert.equal(journal.filter((e) => e.name === 'time_now_ms' && e.status === 'ok').length, steps);
  } finally {
    store.close();
  }
});

test('1,000 processes x 10 journaled steps: the writes ready together share a commit', async () => {
  const dir = programIn(`let work = turn(k: Num) -> Num { let i = 0; while i < 10 { let t = call("time_now_ms"); let i = i + 1; } return 1; };
let results = gather spawn_each(call("range", 1000), work);
return call("len", results);
`);
  const { store, commits, writes } = spied(dir);
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store, onOutput: () => {} });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.equal(result.kind === 'done' && result.json, 1000);
    // 10,000 steps, each an intent and a result, and the scheduler's record of which effect it
    // took first while others were pending: about 30,000 writes. The steps of all 1,000 processes
    // become ready in the same scheduler passes, so a commit covers hundreds of writes.
    assert.ok(writes() >= 20_000, `${writes()} writes`);
    assert.ok(commits() <= writes() / 100, `${commits()} commits for ${writes()} writes`);
    assert.equal(store.readJournal(run.id!).filter((e) => e.kind === 'tool' && e.status === 'ok').length, 10_000);
  } finally {
    store.close();
  }
});

test('a write that fails inside a group rolls the whole group back, and no effect of it runs', async () => {
  const dir = programIn('let fs = use "std/fs";\nlet w = turn(name: Str) -> Str { fs.append(null, "out/" + name, "A"); return name; };\nlet r = gather spawn_each(["a.txt", "b.txt"], w);\nreturn r;\n', true);
  const store = openStore(path.join(dir, 'st'));
  const append = store.appendJournal.bind(store);
  let intents = 0;
  store.appendJournal = (run, e) => {
    // the second process's intent joins the group after the first one's: the disk is full then
    if (e.status === 'intent' && ++intents === 2) throw new StoreError('disk_full', 'the disk is full (injected)');
    return append(run, e);
  };
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store, authority: { allowWrite: ['out'] }, onOutput: () => {} });
    const result = await run.start();
    assert.equal(result.kind, 'aborted', JSON.stringify(result));
    assert.match(result.kind === 'aborted' ? result.message : '', /the disk is full \(injected\)/);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'out')), [], 'the first intent was rolled back with its group: its append never ran');
    assert.deepEqual(store.readJournal(run.id!).filter((e) => e.kind === 'tool'), []);
  } finally {
    store.close();
  }
});

test('a new durable run is created running: starting it commits no status of its own (one fsync fewer per run)', async () => {
  const dir = programIn('remember("k", 1);\nsuspend;\nreturn 1;\n');
  const store = openStore(path.join(dir, 'st'));
  const statuses: string[] = [];
  const set = store.setRunStatus.bind(store);
  store.setRunStatus = (id, status, result) => {
    statuses.push(status);
    set(id, status, result);
  };
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store });
    assert.equal((await run.start()).kind, 'suspended');
    assert.deepEqual(statuses, ['suspended']);
    assert.equal(store.getRun(run.id!)!.status, 'suspended');
  } finally {
    store.close();
  }
});

test("a new durable run stores its program's bundle and its record in one commit (one fsync fewer per run)", async (t) => {
  if (!betterSqlite3Available().ok) {
    t.skip('better-sqlite3 does not load here');
    return;
  }
  const dir = programIn('return 1;\n');
  const file = path.join(dir, 'store.db');
  // the connection's commits, counted where SQLite sees them
  const conn = betterSqlite3Connection(file);
  let commits = 0;
  const counted: SqlConnection = {
    ...conn,
    exec: (sql) => {
      if (/^\s*COMMIT\b/i.test(sql)) commits++;
      conn.exec(sql);
    },
  };
  const store = SqliteRunStore.open(counted, file, BETTER_SQLITE3);
  try {
    const before = commits;
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, store });
    assert.equal(commits - before, 1, 'the bundle and the run: one commit');
    const record = store.getRun(run.id!)!;
    assert.ok(store.getBundle(record.bytecodeHash), 'the bundle is stored with the run');
    assert.equal((await run.start()).kind, 'done');
  } finally {
    store.close();
  }
});

test('createRunWithBundle stores the bundle first in a store without one commit for both', () => {
  const store = new MemoryRunStore();
  const run = createRunWithBundle(store, { entry: 'p.tn', bytecodeHash: 'sha256:b', semanticsVersion: 'turn-vm/1' }, { hash: 'sha256:b', bytes: new Uint8Array([1, 2]) });
  assert.deepEqual(store.getBundle('sha256:b'), new Uint8Array([1, 2]));
  assert.equal(store.getRun(run.id)!.bytecodeHash, 'sha256:b');
});
