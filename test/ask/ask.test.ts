// `ask T { prompt }` (issue 43): a typed question to a person. The answer is checked against T like a
// model's reply (bounded, validated, re-asked with the errors, never bound when it does not fit),
// journaled as an effect (a replay or a resume returns it without asking), and a durable run with
// nobody to ask waits for `turn answer`. `ask` stays usable as a name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { answerQuestion, checkSource, openQuestions, openStore, resumeRun, settleUnknown, startRun, type AskPort, type AskQuestion } from '../../runtime/index.js';
import { ROOT } from '../cli/run-cli.js';

const DECISION = `struct Decision {
  verdict: "approve" | "deny",
  note: Str?
};
`;

function folder(program: string): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-ask-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, program);
  return { dir, file };
}

/** A port that gives `answers` in turn and records every question it was asked. */
function scripted(...answers: unknown[]): { port: AskPort; asked: AskQuestion[] } {
  const asked: AskQuestion[] = [];
  return {
    asked,
    port: async (q) => {
      asked.push(q);
      if (asked.length > answers.length) throw new Error('asked more often than the test expects');
      return answers[asked.length - 1];
    },
  };
}

const never: AskPort = async () => {
  throw new Error('a recorded answer must not be asked again');
};

async function run(program: string, options: { ask?: AskPort; store?: string; askOnTerminal?: boolean } = {}) {
  const { dir, file } = folder(program);
  const r = await startRun({ file, cwd: dir, model: 'mock', onOutput: () => {}, askOnTerminal: false, ...options });
  return { dir, out: await r.start(), id: r.id };
}

test('`ask` is a contextual keyword: programs that use it as a name still check and run', async () => {
  for (const rel of ['examples/investment_committee_v1.tn', 'runtime/std/knowledge.tn']) {
    const file = path.join(ROOT, rel);
    const { diagnostics } = await checkSource(file, fs.readFileSync(file, 'utf8'));
    assert.deepEqual(diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), [], rel);
  }
  // the name and the keyword side by side
  const { port } = scripted(10);
  const { out } = await run(`let ask = 2;
let twice = turn(x: Num) -> Num { return x * 2; };
let r = {"ask": ask};
let n = ask Num { "How many? (ask = " + ask + ")"; };
let ask = ask + call(twice, r["ask"]) - ask;
return [ask, r["ask"], n];
`, { ask: port });
  assert.equal(out.kind, 'done', JSON.stringify(out));
  assert.deepEqual(out.kind === 'done' ? out.json : null, [4, 2, 10]);
});

test('an answer of T is bound with its struct type; the checker types the expression as T', async () => {
  const program = `${DECISION}let d = ask Decision { let who = "the committee"; "Approve the trade? (" + who + ")"; };
return [d.verdict, d.note];
`;
  const { port, asked } = scripted({ verdict: 'approve', note: 'fine' });
  const { out } = await run(program, { ask: port });
  assert.deepEqual(out.kind === 'done' ? out.json : out, ['approve', 'fine']);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].typeName, 'Decision');
  assert.equal(asked[0].prompt, 'Approve the trade? (the committee)');
  assert.equal(asked[0].location.line, 5);
  assert.match(JSON.stringify(asked[0].schema), /"approve"/);
  const { file } = folder(`${DECISION}let d = ask Decision { "?"; };\nlet x = d.verdit;\n`);
  const { diagnostics } = await checkSource(file, fs.readFileSync(file, 'utf8'));
  assert.ok(diagnostics.some((d) => /verdit/.test(d.message)), JSON.stringify(diagnostics.map((d) => d.message)));
});

test('the attack: a wrong, huge, deep or cyclic answer is re-asked with its errors and never bound', async () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  let deep: unknown = 'x';
  for (let i = 0; i < 200; i++) deep = [deep];
  const huge = { verdict: 'approve', note: 'x'.repeat(2 << 20) };
  const { port, asked } = scripted({ verdict: 'maybe' }, huge, deep, cyclic, { verdict: 'deny' });
  const { out } = await run(`${DECISION}let d = ask Decision { "Approve?"; };\nreturn d.verdict;\n`, { ask: port });
  assert.deepEqual(out.kind === 'done' ? out.json : out, 'deny');
  assert.equal(asked.length, 5);
  assert.match(JSON.stringify(asked[1].errors), /verdict/, 'the re-ask says what was wrong');
  assert.match(JSON.stringify(asked[2].errors), /longer than/);
  assert.match(JSON.stringify(asked[3].errors), /deeper than/);
  assert.match(JSON.stringify(asked[4].errors), /deeper than/);

  // answers that never fit: a catchable AskError at the ask's line, after a bounded number of askings
  const wrong = scripted(1, 2, 3, 4, 5);
  const caught = await run(`${DECISION}try {\n  let d = ask Decision { "Approve?"; };\n  return d.verdict;\n} catch (e) {\n  return [e["type"], e["line"], e["ask"]];\n}\n`, { ask: wrong.port });
  assert.deepEqual(caught.out.kind === 'done' ? caught.out.json : caught.out, ['AskError', 6, 'Decision']);
  assert.equal(wrong.asked.length, 5);
});

test('Cancel is the question\'s AskError, catchable; with nobody to ask and no store, a located error', async () => {
  const cancel: AskPort = async () => {
    throw new Error('the person cancelled the question');
  };
  const c = await run(`try {\n  return ask Str { "Name?"; };\n} catch (e) {\n  return e["message"];\n}\n`, { ask: cancel });
  assert.deepEqual(c.out.kind === 'done' ? c.out.json : c.out, 'the person cancelled the question');
  const none = await run(`let x = 1;\nlet name = ask Str { "Name?"; };\nreturn name;\n`);
  assert.equal(none.out.kind, 'failed');
  const message = none.out.kind === 'failed' ? none.out.error.message : '';
  assert.match(message, /nobody can answer `ask Str` at .*p\.tn:2/);
  assert.doesNotMatch(message, /\n\s+at /, 'no JavaScript stack');
});

test('a durable run journals the answer: its resume replays it and never asks again', async () => {
  const { dir, file } = folder(`let n = ask Num { "How many?"; };\nsuspend;\nreturn n + 1;\n`);
  const first = scripted(41);
  const r = await startRun({ file, cwd: dir, model: 'mock', onOutput: () => {}, store: path.join(dir, 'st'), askOnTerminal: false, ask: first.port });
  const out = await r.start();
  assert.equal(out.kind, 'suspended');
  assert.equal(first.asked.length, 1);
  const again = await resumeRun({ runId: r.id!, cwd: dir, model: 'mock', onOutput: () => {}, store: path.join(dir, 'st'), askOnTerminal: false, ask: never });
  const done = await again.start();
  assert.deepEqual(done.kind === 'done' ? done.json : done, 42);
});

test('nobody to ask: a durable run waits; `answer` checks the type, refuses other steps, and the resume continues', async () => {
  const { dir, file } = folder(`${DECISION}let m = "before";\nlet d = ask Decision { "Approve " + m + "?"; };\nreturn d.verdict;\n`);
  const storeDir = path.join(dir, 'st');
  const r = await startRun({ file, cwd: dir, model: 'mock', onOutput: () => {}, store: storeDir, askOnTerminal: false });
  const out = await r.start();
  assert.equal(out.kind, 'waiting');
  assert.match(out.kind === 'waiting' ? out.refused ?? '' : '', /nobody can answer `ask Decision` at .*p\.tn:6/);
  const id = r.id!;
  const store = openStore(storeDir);
  try {
    assert.equal(store.getRun(id)!.status, 'waiting');
    const open = await openQuestions(store, id);
    assert.equal(open.length, 1);
    assert.equal(open[0].prompt, 'Approve before?');
    const before = store.readJournal(id).length;
    await assert.rejects(answerQuestion(store, id, { verdict: 'maybe' }), /not a Decision: .*verdict/);
    await assert.rejects(answerQuestion(store, id, { verdict: 'approve' }, open[0].seq + 100), /not an open question/);
    // `turn resolve --ok` would skip the type check
    assert.throws(() => settleUnknown(store, id, open[0].seq, { ok: 'anything' }), /is a question \(ask\)/);
    assert.equal(store.readJournal(id).length, before, 'a refused answer writes nothing');
    await answerQuestion(store, id, { verdict: 'approve' });
    assert.equal(store.getRun(id)!.status, 'suspended');
  } finally {
    store.close();
  }
  const resumed = await resumeRun({ runId: id, cwd: dir, model: 'mock', onOutput: () => {}, store: storeDir, askOnTerminal: false, ask: never });
  const done = await resumed.start();
  assert.deepEqual(done.kind === 'done' ? done.json : done, 'approve');
});

test('a forged answer in the journal is checked where it is bound: an AskError, never the value', async () => {
  const { dir, file } = folder(`let n = ask Num { "How many?"; };\nreturn n;\n`);
  const storeDir = path.join(dir, 'st');
  const r = await startRun({ file, cwd: dir, model: 'mock', onOutput: () => {}, store: storeDir, askOnTerminal: false });
  assert.equal((await r.start()).kind, 'waiting');
  const store = openStore(storeDir);
  try {
    store.markUnknownOnRecovery(r.id!);
    const step = store.readJournal(r.id!).find((e) => e.kind === 'tool' && e.status === 'unknown')!;
    // written behind `turn answer`'s back: an answer of the wrong type for this question
    store.completeJournal(r.id!, step.seq, 'ok', new TextEncoder().encode(JSON.stringify({ admin: true })));
  } finally {
    store.close();
  }
  const resumed = await resumeRun({ runId: r.id!, cwd: dir, model: 'mock', onOutput: () => {}, store: storeDir, askOnTerminal: false, ask: never });
  const out = await resumed.start();
  assert.equal(out.kind, 'failed');
  assert.match(out.kind === 'failed' ? out.error.message : '', /the answer to `ask Num` is not a Num/);
});

test('the terminal: the question, the type expected, a line of JSON; a refused answer is asked again with why', async () => {
  const { PassThrough } = await import('node:stream');
  const { terminalAsk } = await import('../../runtime/ask/terminal.js');
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (c: Buffer) => (shown += c.toString()));
  const { dir, file } = folder(`${DECISION}let d = ask Decision { "Approve?"; };\nreturn d.verdict;\n`);
  const port = terminalAsk(input, output);
  const lines = ['not json', '{"verdict": "maybe"}', '{"verdict": "deny"}'];
  // each line once the terminal asks for it (its prompt written), so no line is read early
  output.on('data', (c: Buffer) => {
    if (c.toString().includes('answer (JSON)> ')) input.write(lines.shift() + '\n');
  });
  const r = await startRun({ file, cwd: dir, model: 'mock', onOutput: () => {}, ask: port });
  const out = await r.start();
  assert.deepEqual(out.kind === 'done' ? out.json : out, 'deny');
  assert.match(shown, /a question at .*p\.tn:5 \(ask Decision\):\n {2}Approve\?\n {2}expected: \{ verdict: "approve" \| "deny", note\?: Str \}/);
  assert.match(shown, /is not JSON/);
  assert.match(shown, /that answer is not a Decision:\n {2}\/verdict/);
});

test('the CLI without a terminal: the durable run waits (exit 3); `turn answer` shows, refuses a wrong type, answers; resume finishes', async () => {
  const { turnAsync } = await import('../cli/run-cli.js');
  const { dir } = folder(`${DECISION}let d = ask Decision { "Approve the trade?"; };\ncall("echo", "got " + d.verdict);\n`);
  const turn = (args: string[]) => turnAsync(args, { cwd: dir, killAfterMs: 60_000 });
  const first = await turn(['run', 'p.tn', '--store', 'st']);
  assert.equal(first.code, 3, first.stderr);
  assert.match(first.stderr, /question: step \d+: nobody can answer `ask Decision` at .*p\.tn:5/);
  const id = /waiting: (\S+)/.exec(first.stderr)![1];
  const shown = await turn(['answer', id, '--store', 'st']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stderr, /question: step \d+ \(ask Decision\): Approve the trade\?\n {2}expected: \{ verdict: "approve" \| "deny", note\?: Str \}/);
  const wrong = await turn(['answer', id, '--store', 'st', '--value', '{"verdict": "yes"}']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /the answer is not a Decision: \/verdict/);
  const deep = await turn(['answer', id, '--store', 'st', '--value', '['.repeat(100) + ']'.repeat(100)]);
  assert.match(deep.stderr, /deeper than 64/);
  assert.doesNotMatch(deep.stderr + wrong.stderr, /\n\s+at .+\.(js|ts):\d+/);
  const ok = await turn(['answer', id, '--store', 'st', '--value', '{"verdict": "approve"}']);
  assert.equal(ok.code, 0, ok.stderr);
  const done = await turn(['resume', id, '--store', 'st']);
  assert.equal(done.code, 0, done.stderr);
  assert.equal(done.stdout, 'got approve\n');
});
