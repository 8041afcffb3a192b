// Approvals are journaled and never asked twice (docs/authority.md, "Approval"; docs/durability.md,
// "Interruption"). A durable run journals each approval it asks — the question first, then who
// decided what and when — and a resume replays the decision instead of asking again. A signal at a
// terminal approval prompt interrupts the run like anywhere else: the prompt stops, the command
// exits 130 (SIGINT, also Ctrl-C typed at the prompt) or 143 (SIGTERM) with the run saved, and the
// effect that stopped at the prompt runs on resume (it was never performed) instead of waiting as
// an unknown outcome. Before, no decision was journaled, a resume asked again, and SIGTERM at the
// prompt printed "interrupted" and kept waiting.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resumeRun, startRun, type ApprovalHook } from '../../runtime/index.js';
import { fakeServer, openaiCompletion, type Scripted } from '../providers/fake-server.js';
import { BIN, turn } from '../cli/run-cli.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function workdir(program: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-approvals-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'out'));
  fs.writeFileSync(path.join(dir, 'p.tn'), program);
  return dir;
}

const WRITE = 'let fs = use "std/fs";\nfs.write(null, "out/a.txt", "hello");\ncall("echo", "written");\n';

interface JournalRow {
  step: string;
  kind: string;
  status: string;
  payload: unknown;
}

function journalOf(dir: string, id: string): JournalRow[] {
  const r = turn(['inspect', id, '--store', 'st', '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { journal: JournalRow[] }).journal;
}

const runIdOf = (stderr: string): string => /turn: run (\S+)/.exec(stderr)?.[1] ?? assert.fail(`no run id in: ${stderr}`);

test('each approval of a durable run is journaled: what was asked, the decision, who made it and when', () => {
  const dir = workdir(WRITE);
  const approved = turn(['run', 'p.tn', '--store', 'st', '--allow-write', 'out', '--approve-effects', 'files', '--approve', 'all'], { cwd: dir });
  assert.equal(approved.code, 0, approved.stderr);
  const entry = journalOf(dir, runIdOf(approved.stderr)).find((e) => e.kind === 'approval');
  assert.ok(entry, 'the journal holds the approval');
  assert.equal(entry.step, 'ae1.1');
  assert.equal(entry.status, 'ok');
  const p = entry.payload as { effect: string; summary: string; step: string; decision: string; by: string; at: string };
  assert.deepEqual({ ...p, at: undefined }, { type: 'approval', effect: 'files', summary: `write ${fs.realpathSync(dir)}/out/a.txt`, step: 'e1', decision: 'approve', by: '--approve all', at: undefined });
  assert.ok(Math.abs(Date.parse(p.at) - Date.now()) < 10 * 60_000, `a time: ${p.at}`);

  // a denial leaves the step unrun and the run waiting for someone to approve it on resume
  // (docs/durability.md, *Refusals are not outcomes*); the journal still says who said no
  const denied = turn(['run', 'p.tn', '--store', 'st', '--allow-write', 'out', '--approve-effects', 'files', '--approve', 'none'], { cwd: dir });
  assert.equal(denied.code, 3, denied.stderr);
  const no = journalOf(dir, runIdOf(denied.stderr)).find((e) => e.kind === 'approval');
  assert.deepEqual([(no?.payload as { decision?: string }).decision, (no?.payload as { by?: string }).by], ['deny', '--approve none']);
});

test('a resume replays the journaled decision and never asks again', async () => {
  // the first request hangs (the run is interrupted while it is in flight); the one the resume sends is answered
  let reached!: () => void;
  const inFlight = new Promise<void>((resolve) => (reached = resolve));
  const server = await fakeServer((_req, n): Scripted => {
    if (n > 1) return { status: 200, body: { got: 'data' } };
    reached();
    return { hang: true };
  });
  const dir = workdir(`let net = use "std/net";\nlet r = net.get(null, "${server.url}/x");\nreturn r["body"];\n`);
  const asked: string[] = [];
  const hook = (answer: 'approve' | 'deny'): ApprovalHook => async (request) => {
    asked.push(`${answer}: ${request.summary}`);
    return answer;
  };
  const options = { cwd: dir, store: path.join(dir, 'st'), model: 'mock', onOutput: () => {} };
  try {
    const run = await startRun({ ...options, file: path.join(dir, 'p.tn'), authority: { allowNet: ['127.0.0.1:*'], approveEffects: ['network'], approve: hook('approve') } });
    const started = run.start();
    // interrupt once the approved request has reached the server
    await inFlight;
    run.interrupt('SIGTERM');
    assert.equal((await started).kind, 'stopped');
    assert.deepEqual(asked, [`approve: GET ${server.url}/x`]);

    // the resume's approver would deny: it is never asked, the journaled approval stands
    const resumed = await resumeRun({ ...options, runId: run.id!, authority: { approve: hook('deny') } });
    const result = await resumed.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.equal(result.kind === 'done' ? result.json : null, '{"got":"data"}');
    assert.deepEqual(asked, [`approve: GET ${server.url}/x`], 'the resume asked nobody');
    assert.equal(server.received.length, 2);
  } finally {
    await server.close();
  }
});

test('an approved model call whose reply the interruption lost is asked again on resume without a new question', async () => {
  let reached!: () => void;
  const inFlight = new Promise<void>((resolve) => (reached = resolve));
  const server = await fakeServer((_req, n): Scripted => {
    if (n > 1) return { status: 200, body: openaiCompletion(JSON.stringify({ value: 'fine', confidence: 0.9 })) };
    reached();
    return { hang: true };
  });
  const dir = workdir('let s: Str = infer Str { "how is it"; };\nreturn s;\n');
  const asked: string[] = [];
  const hook = (answer: 'approve' | 'deny'): ApprovalHook => async (request) => {
    asked.push(`${answer}: ${request.summary}`);
    return answer;
  };
  const model = `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY`;
  const options = { cwd: dir, store: path.join(dir, 'st'), model, env: { ...process.env, TURN_TEST_KEY: 'k' }, onOutput: () => {} };
  try {
    const run = await startRun({ ...options, file: path.join(dir, 'p.tn'), authority: { approveEffects: ['model'], approve: hook('approve') } });
    const started = run.start();
    await inFlight;
    run.interrupt('SIGINT');
    assert.equal((await started).kind, 'stopped');
    assert.equal(asked.length, 1);

    const resumed = await resumeRun({ ...options, runId: run.id!, authority: { approve: hook('deny') } });
    const result = await resumed.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.equal(result.kind === 'done' ? result.json : null, 'fine');
    assert.equal(asked.length, 1, `the resume asked nobody: ${asked.join('; ')}`);
    assert.equal(server.received.length, 2);
  } finally {
    await server.close();
  }
});

/** `node bin/turn.js ARGS` on a pseudo-terminal (util-linux `script`), in `dir`. */
function onTerminal(dir: string, args: string[]): { child: ReturnType<typeof spawn>; output: () => string; exited: Promise<number | null> } {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  // a regression that keeps waiting at the prompt would hang the test: it is killed, and fails below
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => (clearTimeout(guard), resolve(code))));
  return { child, output: () => out, exited };
}

/** Resolves once `text` has appeared in what the terminal shows. */
function shown(t: { child: ReturnType<typeof spawn>; output: () => string }, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (t.output().includes(text)) {
        t.child.stdout!.off('data', check);
        resolve();
      }
    };
    t.child.stdout!.on('data', check);
    t.child.on('close', () => reject(new Error(`the command ended before showing ${JSON.stringify(text)}:\n${t.output()}`)));
    check();
  });
}

/** The pid of the `turn` process running `file` (the terminal's child). */
function turnPid(file: string): number {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string[];
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (cmdline[0] === process.execPath && cmdline.includes(BIN) && cmdline.includes(file)) return Number(name);
  }
  throw new Error(`no turn process runs ${file}`);
}

test('SIGTERM at a terminal approval prompt exits 143 with the run saved; the resume performs the effect once', async () => {
  const dir = workdir(WRITE);
  const file = path.join(dir, 'p.tn');
  const t = onTerminal(dir, ['run', file, '--store', 'st', '--allow-write', 'out', '--approve-effects', 'files']);
  await shown(t, '? [y/N]');
  process.kill(turnPid(file), 'SIGTERM');
  assert.equal(await t.exited, 143, t.output());
  const id = runIdOf(t.output());
  assert.match(t.output(), new RegExp(`turn: interrupted by SIGTERM: run ${id} is saved up to its last committed step; continue it with \`turn resume ${id} --store st\``));
  assert.equal(fs.existsSync(path.join(dir, 'out', 'a.txt')), false, 'nothing was written');

  // the question was journaled, never decided: the write was not performed, so it runs on resume
  const resumed = turn(['resume', id, '--store', 'st', '--approve', 'all'], { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, 'written\n');
  assert.equal(fs.readFileSync(path.join(dir, 'out', 'a.txt'), 'utf8'), 'hello');
  const approvals = journalOf(dir, id).filter((e) => e.kind === 'approval');
  assert.deepEqual(approvals.map((e) => [e.status, (e.payload as { by?: string }).by]), [['ok', '--approve all']]);
});

test('Ctrl-C typed at the approval prompt interrupts the run: exit 130, the run saved', async () => {
  const dir = workdir(WRITE);
  const file = path.join(dir, 'p.tn');
  const t = onTerminal(dir, ['run', file, '--store', 'st', '--allow-write', 'out', '--approve-effects', 'files']);
  await shown(t, '? [y/N]');
  t.child.stdin!.write('\x03');
  assert.equal(await t.exited, 130, t.output());
  assert.match(t.output(), /turn: interrupted by SIGINT: run \S+ is saved/);
  assert.equal(fs.existsSync(path.join(dir, 'out', 'a.txt')), false);
});
