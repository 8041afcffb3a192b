// Budgets nobody inside can raise (issue: "limits can be raised from inside", "promised controls
// that do nothing"). A process can only lower its own limits: `call("budget", ...)`,
// `task_budget`, `context_budget`, the children it starts — a raise is a Turn error at the call,
// which the program can catch (it keeps the limits it had). `--max-model-tokens` counts each model
// call's prompt and completion and ends the run at the call that would not fit or that crossed it.
// And every budget `turn help` lists is exceeded once here or in test/hardening/budgets.test.ts
// (--max-steps, --max-alloc, --max-time, --tool-timeout), ending as it says it does.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resumeRun, startRun, type RunOptions, type RunResult } from '../../runtime/index.js';
import { fakeServer, openaiCompletion } from '../providers/fake-server.js';
import { turnAsync } from '../durability/helpers.js';
import { JS_STACK } from '../cli/run-cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-budgets-inside-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let files = 0;
function program(source: string, name = `p${files++}.tn`): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, source);
  return file;
}

async function runIn(source: string, options: Omit<RunOptions, 'file'> = {}): Promise<{ result: RunResult; lines: string[] }> {
  const lines: string[] = [];
  const run = await startRun({ file: program(source), cwd: tmp, model: 'mock', onOutput: (l) => lines.push(l), ...options });
  return { result: await run.start(), lines };
}

function done(result: RunResult): unknown {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return result.kind === 'done' ? result.json : undefined;
}

function failed(result: RunResult): { message: string; line: number } {
  assert.equal(result.kind, 'failed', JSON.stringify(result.kind === 'done' ? result.rendered : result));
  return result.kind === 'failed' ? result.error : { message: '', line: 0 };
}

/** Allocates about 12,000 cells in steps: far past a 5,000-cell budget, far below the run's. */
const ALLOCATE = 'let i = 0; while i < 2000 { let xs = [i, i, i, i, i]; let i = i + 1; }';

// ---------------------------------------------------------------------------------------------
// A process can only lower its limits

test('a task under task_budget cannot raise its own budget: the raise is a catchable error at its line and the task still fails at 5,000 cells', async () => {
  const { result, lines } = await runIn(`
let hog = turn() {
    try { call("budget", {"alloc": 100000000}); call("echo", "raised"); } catch (e) { call("echo", e["type"] + " at " + e["line"] + ": " + e["message"]); }
    try { call("budget", {"alloc": 0}); call("echo", "lifted"); } catch (e) { call("echo", e["message"]); }
    ${ALLOCATE}
    return "escaped";
};
let report = scope best_effort {
    call("task_budget", {"alloc": 5000});
    task hog;
};
return [report["results"], report["failures"][0].error["budget"], report["failures"][0].error["limit"]];
`);
  assert.deepEqual(done(result), [[], 'alloc', 5000]);
  assert.match(lines[0], /^RuntimeError at 3: budget: cannot raise alloc to 100000000: this process has \d+ cells of its alloc budget left, and a process can only lower its limits$/);
  assert.match(lines[1], /^budget: cannot raise alloc to no limit \(0\)/);
});

test('steps and time cannot be raised or lifted either; lowering is allowed and counts from the call', async () => {
  const { result, lines } = await runIn(`
let looper = turn() {
    try { call("budget", {"steps": 0}); call("echo", "lifted"); } catch (e) { call("echo", e["message"]); }
    try { call("budget", {"time_ms": 100000000}); call("echo", "raised"); } catch (e) { call("echo", e["message"]); }
    let lowered = call("budget", {"steps": 500});
    call("echo", lowered["steps"]);
    let i = 0; while i < 100000 { let i = i + 1; }
    return "escaped";
};
let report = scope best_effort {
    call("task_budget", {"steps": 2000, "time_ms": 60000});
    task looper;
};
return [report["results"], report["failures"][0].error["budget"], report["failures"][0].error["limit"]];
`);
  assert.deepEqual(done(result), [[], 'steps', 500]);
  assert.match(lines[0], /^budget: cannot raise steps to no limit \(0\): this process has \d+ steps of its steps budget left/);
  assert.match(lines[1], /^budget: cannot raise time_ms to 100000000: this process has \d+ ms of its time_ms budget left/);
  assert.equal(lines[2], '500');
});

test('a task cannot escape its budget through the processes it starts, nor a nested scope\'s task_budget', async () => {
  const { result, lines } = await runIn(`
let worker = turn() { ${ALLOCATE} return "escaped"; };
let hog = turn() {
    let nested = scope best_effort {
        try { call("task_budget", {"alloc": 100000000}); } catch (e) { call("echo", e["message"]); }
        task worker;
    };
    call("echo", nested["failures"][0].error["budget"]);
    let child = spawn worker;
    try { return call("wait", child); } catch (e) { return "child: " + e["type"] + " " + e["budget"]; }
};
let report = scope best_effort {
    call("task_budget", {"alloc": 5000});
    task hog;
};
return report["results"];
`);
  assert.deepEqual(done(result), ['child: BudgetExhausted alloc']);
  assert.match(lines[0], /^task_budget: cannot raise alloc to 100000000: this process has \d+ cells of its alloc budget left/);
  assert.equal(lines[1], 'alloc');
});

test('a task keeps its limits across a suspend and a resume from the snapshot', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'snapshot-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(
    file,
    `let report = scope best_effort {
    call("task_budget", {"alloc": 5000});
    task turn() { suspend; ${ALLOCATE} return "escaped"; };
};
return [report["results"], report["failures"][0].error["budget"]];
`,
  );
  const options = { cwd: dir, store: path.join(dir, 'st'), model: 'mock', onOutput: () => {} };
  const run = await startRun({ ...options, file });
  assert.equal((await run.start()).kind, 'suspended');
  const resumed = await resumeRun({ ...options, runId: run.id! });
  assert.equal(resumed.notes.length, 0, `resumed from the snapshot: ${resumed.notes.join('; ')}`);
  assert.deepEqual(done(await resumed.start()), [[], 'alloc']);
});

test('context_budget cannot raise a context budget above the run\'s --context-working', async () => {
  const { result } = await runIn(
    `
let before = call("context_budget", {"working": 20});
try { call("context_budget", {"working": 1000000}); return "raised"; } catch (e) { return [before["working"], e["message"]]; }
`,
    { context: { working: 50 } },
  );
  assert.deepEqual(done(result), [20, "context_budget: cannot raise working to 1000000: this process's working budget is 20 tokens, and a process can only lower its limits"]);
});

test('an agent\'s refusal is an EffectError, caught as a refused grant is', async () => {
  const file = 'x.txt';
  fs.writeFileSync(path.join(tmp, file), 'data');
  const { result } = await runIn(
    `
let fsm = use "std/fs";
let refused_by_run = "";
try { fsm.read(null, "/etc/hostname"); } catch (e) { let refused_by_run = e["type"]; }
let a = call("agent", {"name": "lab", "policy": null, "capabilities": ["clock"]}, turn() {
    let fsm = use "std/fs";
    try { return fsm.read(null, "${file}"); } catch (e) { return [e["type"], e["tool"], e["message"]]; }
});
return [refused_by_run, call("wait", a)];
`,
    { authority: { allowRead: ['.'] } },
  );
  const [byRun, [type, tool, message]] = done(result) as [string, [string, string, string]];
  assert.equal(byRun, 'EffectError');
  assert.equal(type, 'EffectError');
  assert.equal(tool, 'fs_read');
  assert.match(message, /fs_read needs the "files" capability, which agent "lab" was not granted \(its capabilities: clock\)/);
});

// ---------------------------------------------------------------------------------------------
// --max-model-tokens

const TWO_CALLS = `struct Memo { note: Str }
let a = infer Memo { "first"; };
call("echo", a.note);
let b = infer Memo { "second"; };
call("echo", b.note);
`;

function scriptModel(replies: { note: string; input: number; output: number }[]): string {
  const file = path.join(tmp, `script${files++}.json`);
  fs.writeFileSync(file, JSON.stringify({ replies: replies.map((r) => ({ value: { note: r.note }, usage: { input: r.input, output: r.output } })) }));
  return `script:${file}`;
}

test('--max-model-tokens: the call whose reported usage crosses the budget ends the run at its line; a catch does not swallow it', async () => {
  // each prompt is about 130 tokens: both fit before they are sent; the second one's usage crosses 1000
  const model = scriptModel([
    { note: 'one', input: 300, output: 200 },
    { note: 'two', input: 300, output: 250 },
  ]);
  const { result, lines } = await runIn(TWO_CALLS.replace('let b = infer Memo { "second"; };', 'let b = Memo { note: "none" };\ntry { let b = infer Memo { "second"; }; } catch (e) { call("echo", "caught"); }'), {
    model,
    authority: { maxModelTokens: 1000 },
  });
  const e = failed(result);
  assert.equal(e.line, 5);
  assert.match(e.message, /this model call took the run past its model token budget: 1050 of 1000 tokens used \(this call: 550\); raise it with --max-model-tokens/);
  assert.deepEqual(lines, ['one'], 'the reply that crossed the budget is not delivered, and no catch sees the error');

  const enough = await runIn(TWO_CALLS, { model: scriptModel([{ note: 'one', input: 300, output: 200 }, { note: 'two', input: 300, output: 250 }]), authority: { maxModelTokens: 1050 } });
  done(enough.result);
  assert.deepEqual(enough.lines, ['one', 'two']);
});

test('--max-model-tokens: a call whose prompt cannot fit in what is left is not sent; the run ends at its line', async () => {
  const model = scriptModel([{ note: 'one', input: 900, output: 50 }, { note: 'two', input: 10, output: 10 }]);
  const { result, lines } = await runIn(TWO_CALLS, { model, authority: { maxModelTokens: 1000 } });
  const e = failed(result);
  assert.equal(e.line, 4);
  assert.match(e.message, /the model token budget of 1000 cannot fit this call: its prompt is about \d+ tokens and 50 are left; raise it with --max-model-tokens/);
  assert.deepEqual(lines, ['one']);
  // a budget smaller than any prompt refuses the first call before it is sent
  const tiny = await runIn(TWO_CALLS, { model: scriptModel([{ note: 'one', input: 1, output: 1 }]), authority: { maxModelTokens: 1 } });
  assert.equal(failed(tiny.result).line, 2);
  assert.deepEqual(tiny.lines, []);
});

test('--max-model-tokens holds across a resume: the replayed calls count again', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'resume-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, TWO_CALLS.replace('let b =', 'suspend;\nlet b ='));
  const script = path.join(dir, 'script.json');
  fs.writeFileSync(script, JSON.stringify({ replies: [{ value: { note: 'n' }, usage: { input: 300, output: 250 }, repeat: true }] }));
  const options = { cwd: dir, store: path.join(dir, 'st'), model: `script:${script}`, onOutput: () => {}, authority: { maxModelTokens: 1000 } };
  const run = await startRun({ ...options, file });
  assert.equal((await run.start()).kind, 'suspended');
  // 550 tokens were spent before the suspend: the resume's call takes the run to 1100
  const resumed = await resumeRun({ ...options, runId: run.id! });
  const e = failed(await resumed.start());
  assert.equal(e.line, 5);
  assert.match(e.message, /this model call took the run past its model token budget: 1100 of 1000 tokens used \(this call: 550\)/);
});

test('turn run --max-model-tokens against an HTTP provider: its usage counts, the call past the budget is the last one sent, and the run exits 1 at its line', async () => {
  const server = await fakeServer(() => ({ status: 200, body: openaiCompletion(JSON.stringify({ value: { note: 'n' }, confidence: 0.9 }), { usage: [400, 200] }) }));
  try {
    const dir = fs.mkdtempSync(path.join(tmp, 'http-'));
    fs.writeFileSync(path.join(dir, 'p.tn'), TWO_CALLS + 'let c = infer Memo { "third"; };\ncall("echo", c.note);\n');
    const spec = `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY`;
    const r = await turnAsync(['run', 'p.tn', '--model', spec, '--max-model-tokens', '1000'], dir);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /p\.tn:4:\d+: runtime error: .*this model call took the run past its model token budget: 1200 of 1000 tokens used \(this call: 600\)/);
    assert.doesNotMatch(r.stderr, JS_STACK);
    assert.equal(r.stdout, 'n\n');
    assert.equal(server.received.length, 2, 'the third call is never sent');

    // a provider that reports no usage is measured with the tokenizer: still bounded
    const silent = await fakeServer(() => {
      const body = openaiCompletion(JSON.stringify({ value: { note: 'n' }, confidence: 0.9 })) as Record<string, unknown>;
      delete body.usage;
      return { status: 200, body };
    });
    try {
      const spec2 = `openai:gpt-test?base_url=${silent.url}/v1&api_key_env=TURN_TEST_KEY`;
      const r2 = await turnAsync(['run', 'p.tn', '--model', spec2, '--max-model-tokens', '300'], dir);
      assert.equal(r2.code, 1, r2.stderr);
      // each call is its prompt (~132 tokens) and its reply (~14) by the tokenizer: two fit in 300, the third cannot
      assert.match(r2.stderr, /p\.tn:6:\d+: runtime error: .*the model token budget of 300 cannot fit this call: its prompt is about \d+ tokens and \d+ are left/);
      assert.equal(silent.received.length, 2);
    } finally {
      await silent.close();
    }
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------------
// The other budgets `turn help` lists, each exceeded (--max-steps, --max-alloc, --max-time and
// --tool-timeout: test/hardening/budgets.test.ts)

test('--max-model-calls: the call past the budget is refused before it is sent, with an InferError the program can catch', async () => {
  const server = await fakeServer(() => ({ status: 200, body: openaiCompletion(JSON.stringify({ value: { note: 'n' }, confidence: 0.9 })) }));
  try {
    const dir = fs.mkdtempSync(path.join(tmp, 'calls-'));
    fs.writeFileSync(path.join(dir, 'p.tn'), TWO_CALLS.replace('let b = infer Memo { "second"; };\ncall("echo", b.note);', 'try { let b = infer Memo { "second"; }; } catch (e) { call("echo", e["type"] + ": " + e["message"]); }'));
    const r = await turnAsync(['run', 'p.tn', '--model', `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY`, '--max-model-calls', '1'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^n\nInferError: infer Memo: the model call failed: the model call budget is exhausted \(1 of 1 calls used\)\n$/);
    assert.equal(server.received.length, 1);

    // and across a resume: the call made before the suspend still counts
    fs.writeFileSync(path.join(dir, 'p.tn'), fs.readFileSync(path.join(dir, 'p.tn'), 'utf8').replace('try {', 'suspend;\ntry {'));
    const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY`, '--max-model-calls', '1'], dir);
    assert.equal(first.code, 0, first.stderr);
    const id = /turn: run (\S+)/.exec(first.stderr)?.[1] ?? assert.fail(first.stderr);
    const resumed = await turnAsync(['resume', id, '--store', 'st'], dir);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /InferError: infer Memo: the model call failed: the model call budget is exhausted \(1 of 1 calls used\)\n$/);
    assert.equal(server.received.length, 2, 'one call in each run, none on resume');
  } finally {
    await server.close();
  }
});

test('--max-tokens bounds every reply, even one whose infer asks for more: the bound is sent, and a reply cut off at it is an InferError at the infer', async () => {
  const server = await fakeServer(() => ({ status: 200, body: openaiCompletion('{"value": {"note": "a very long no', { finish: 'length' }) }));
  try {
    const dir = fs.mkdtempSync(path.join(tmp, 'maxtokens-'));
    fs.writeFileSync(path.join(dir, 'p.tn'), TWO_CALLS.replace('infer Memo { "first"; }', 'infer Memo with { max_tokens: 100000 } { "first"; }'));
    const r = await turnAsync(['run', 'p.tn', '--model', `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY`, '--max-tokens', '7'], dir, { TURN_INFER_RETRIES: '0' });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /p\.tn:2:\d+: runtime error: infer Memo: .*cut off at the output token limit/);
    const sent = server.received[0].json as { max_tokens?: number; max_completion_tokens?: number };
    assert.equal(sent.max_completion_tokens ?? sent.max_tokens, 7);
  } finally {
    await server.close();
  }
});

test('--context-working and --context-episodic, which the program cannot raise: entries past the working budget move to episodic, and past that are dropped from the prompt', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'context-'));
  fs.writeFileSync(
    path.join(dir, 'p.tn'),
    'try { call("context_budget", {"working": 100000, "episodic": 100000}); } catch (e) { call("echo", e["message"]); }\nlet i = 0;\nwhile i < 30 { context.append("entry number " + i + " of the log"); let i = i + 1; }\nlet s: Str = infer Str { "summarise"; };\nreturn s;\n',
  );
  const trace = path.join(dir, 'trace.jsonl');
  const r = await turnAsync(['run', 'p.tn', '--context-working', '40', '--context-episodic', '60', '--trace-file', trace], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^context_budget: cannot raise working to 100000: this process's working budget is 40 tokens/, 'the program cannot raise them');
  const request = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string; prompt?: { P1: string[]; P2: string[] } }).find((e) => e.kind === 'infer.request');
  assert.ok(request?.prompt, 'the trace shows the request');
  const { P1, P2 } = request.prompt;
  assert.ok(P1.length > 0 && P2.length > 0);
  assert.ok(P1.length + P2.length < 30, 'the oldest entries were dropped');
  assert.ok(P1.includes('entry number 29 of the log'), 'the newest entry stays in P1');
  assert.ok(!P1.concat(P2).includes('entry number 0 of the log'), 'the oldest entry is gone');
});
