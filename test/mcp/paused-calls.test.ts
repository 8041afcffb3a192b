// 2026-07-28 without a store (runtime/mcp/serve-next/paused-calls.ts): a served run that asks its
// client mid-call answers `input_required` and waits in memory; the client's retry with the answers
// and the signed requestState lets the same run go on. Driven over HTTP with raw JSON-RPC, as a
// hostile client would: replayed, altered and borrowed states, wrong answers, undeclared
// capabilities, and the bounds (count, bytes, age) set small. And the tasks extension
// (runtime/mcp/serve-next/tasks.ts): a task tool's run goes on after the reply, polled, answered and
// cancelled through tasks/get, tasks/update and tasks/cancel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serveMcpNext } from '../../runtime/mcp/serve-next/index.js';
import type { PausedLimits } from '../../runtime/mcp/serve-next/paused-calls.js';
import { DEFAULT_TASK_LIMITS, TASKS_EXTENSION, type TaskLimits } from '../../runtime/mcp/serve-next/tasks.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-paused-'));
const served = path.join(dir, 'asking.tn');
fs.writeFileSync(
  served,
  `let mcp = use "std/mcp";
let NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]};
return {
    "two_rounds": turn(greeting: Str) -> Str {
        let name = mcp.elicit_as("name", "Your name?", NAME);
        let color = mcp.elicit_as("color", "Your colour?", {"type": "object", "properties": {"color": {"type": "string"}}});
        return greeting + " " + name["content"]["name"] + ", who likes " + color["content"]["color"];
    },
    "three_at_once": turn() -> Str {
        let got = gather spawn_each(["who", "what", "where"], turn(key: Str) -> Any {
            if key == "who" { return mcp.elicit_as(key, "Who?", NAME)["content"]["name"]; }
            if key == "what" { return mcp.sample_as(key, "What?", 10)["content"]["text"]; }
            return mcp.roots_as(key)["roots"][0]["uri"];
        });
        return call("str_join", got, " | ");
    },
    "same_key_twice": turn() -> Str {
        let got = gather spawn_each([1, 2], turn(n: Num) -> Any { return mcp.elicit_as("dup", "Which?", NAME); });
        return call("json_stringify", got);
    },
    "needs_elicitation": turn() -> Str {
        return mcp.elicit("Your name?", NAME)["action"];
    },
    "falls_back": turn() -> Str {
        try {
            return mcp.elicit("Your name?", NAME)["action"];
        } catch (e) {
            return mcp.sample("Hello?", 10)["content"]["text"];
        }
    },
    "long_question": turn(text: Str) -> Str {
        try {
            return mcp.elicit(text, NAME)["action"];
        } catch (e) {
            return "refused: " + e["message"];
        }
    },
    "task:two_answers": turn(label: Str) -> Str {
        let got = gather spawn_each(["a", "b"], turn(key: Str) -> Any { return mcp.elicit_as(key, key + "?", NAME)["content"]["name"]; });
        return label + ": " + call("str_join", got, " and ");
    },
    "task:fails": turn() -> Str { throw {"type": "Nope", "message": "the job failed"}; },
    "task-required:only_task": turn() -> Str { return "ran as a task"; },
    "leaky": turn() -> Str { return mcp.elicit_as("k", "the password is hunter2-secret-value", NAME)["action"]; },
    "task:leaky_task": turn() -> Str { return mcp.elicit_as("k", "the password is hunter2-secret-value", NAME)["action"]; },
    "prompt:asking": turn() -> Str {
        return "context: " + mcp.elicit_as("ctx", "Context?", {"type": "object", "properties": {"c": {"type": "string"}}})["content"]["c"];
    },
};
`,
);

const ALL = { elicitation: {}, sampling: {}, roots: {} };
type Reply = { status: number; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

async function serve(limits?: Partial<PausedLimits>, taskLimits?: Partial<TaskLimits>, env?: Record<string, string>) {
  const serving = await serveMcpNext(served, {
    run: { cwd: dir, ...(env ? { env } : {}) },
    port: 0,
    ...(limits ? { paused: { maxRuns: 64, maxBytes: 1 << 20, maxAgeMs: 60_000, ...limits } } : {}),
    ...(taskLimits ? { tasks: { ...DEFAULT_TASK_LIMITS, ...taskLimits } } : {}),
  });
  let id = 0;
  /** One 2026-07-28 request (the envelope in `_meta`), its JSON-RPC answer read from JSON or an SSE stream. */
  const post = async (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = ALL): Promise<Reply> => {
    const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
    const body = {
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
    };
    const res = await fetch(serving.url!, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${serving.token!.value}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const messages = (res.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
      : [JSON.parse(text) as Record<string, unknown>];
    const answer = messages.find((m) => m.id === body.id) as Reply | undefined;
    assert.ok(answer, `an answer to ${method}: ${text}`);
    return { status: res.status, ...(answer.result ? { result: answer.result } : {}), ...(answer.error ? { error: answer.error } : {}) };
  };
  const call = (name: string, args: Record<string, unknown>, more: Record<string, unknown> = {}, capabilities?: Record<string, unknown>) => post('tools/call', { name, arguments: args, ...more }, capabilities);
  return { serving, post, call };
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const text = (r: Reply): string => ((r.result?.content as { text: string }[] | undefined) ?? []).map((b) => b.text).join('\n');

test('a run that asks is paused, not run again: two rounds of questions, each with its own state, then its value from both answers', async () => {
  const { serving, call } = await serve();
  try {
    const first = await call('two_rounds', { greeting: 'Hi' });
    assert.equal(first.result?.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.result.inputRequests as object), ['name']);
    assert.equal((first.result.inputRequests as Record<string, { method: string }>).name.method, 'elicitation/create');
    const state1 = first.result.requestState as string;
    assert.match(state1, /^v1\.[\w-]+\.[\w-]+$/);
    const second = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { name: accept({ name: 'Ada' }) }, requestState: state1 });
    assert.deepEqual(Object.keys(second.result!.inputRequests as object), ['color']);
    const state2 = second.result!.requestState as string;
    assert.notEqual(state2, state1);
    // the last retry carries only the colour: the name comes from the run that kept it
    const done = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { color: accept({ color: 'teal' }) }, requestState: state2 });
    assert.equal(done.result?.resultType, 'complete');
    assert.equal(text(done), 'Hi Ada, who likes teal');
  } finally {
    await serving.close();
  }
});

test('a state opens its round once: a replay, another call\'s arguments, an altered or foreign state are refused (-32602) and resume nothing', async () => {
  const { serving, call } = await serve();
  const other = await serve();
  try {
    const first = await call('two_rounds', { greeting: 'Hi' });
    const state = first.result!.requestState as string;
    const answers = { inputResponses: { name: accept({ name: 'Ada' }) } };
    // another call (other arguments) presenting this call's state
    const borrowed = await call('two_rounds', { greeting: 'Yo' }, { ...answers, requestState: state });
    assert.equal(borrowed.error?.code, -32602);
    assert.match(borrowed.error.message, /another call/);
    // one character of the signature changed
    const altered = await call('two_rounds', { greeting: 'Hi' }, { ...answers, requestState: state.slice(0, -2) + (state.at(-2) === 'A' ? 'B' : 'A') + state.slice(-1) });
    assert.equal(altered.error?.code, -32602);
    // a genuine state of another server (another secret)
    const foreign = (await other.call('two_rounds', { greeting: 'Hi' })).result!.requestState as string;
    assert.equal((await call('two_rounds', { greeting: 'Hi' }, { ...answers, requestState: foreign })).error?.code, -32602);
    // the genuine retry still works after all that: nothing above resumed the run
    const second = await call('two_rounds', { greeting: 'Hi' }, { ...answers, requestState: state });
    assert.deepEqual(Object.keys(second.result!.inputRequests as object), ['color']);
    // and the same state again is a replay
    const replay = await call('two_rounds', { greeting: 'Hi' }, { ...answers, requestState: state });
    assert.equal(replay.error?.code, -32602);
    assert.match(replay.error.message, /answered already/);
  } finally {
    await serving.close();
    await other.serving.close();
  }
});

test('an answer of the wrong shape is refused before anything resumes; a missing one is asked again; unknown keys are ignored', async () => {
  const { serving, call } = await serve();
  try {
    const first = await call('two_rounds', { greeting: 'Hi' });
    const state = first.result!.requestState as string;
    const wrong = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { name: { action: 'maybe' } }, requestState: state });
    assert.equal(wrong.error?.code, -32602);
    assert.match(wrong.error.message, /inputResponses\.name/);
    // no answer under the asked key: the same question again, in a new round
    const again = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { other: accept({ x: 1 }) }, requestState: state });
    assert.deepEqual(Object.keys(again.result!.inputRequests as object), ['name']);
    const next = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { name: accept({ name: 'Bo' }), extra: accept({}) }, requestState: again.result!.requestState });
    assert.deepEqual(Object.keys(next.result!.inputRequests as object), ['color']);
    // answers given on the first call answer the questions when they are asked: no round at all
    const direct = await call('two_rounds', { greeting: 'Yo' }, { inputResponses: { name: accept({ name: 'Cy' }), color: accept({ color: 'red' }) } });
    assert.equal(text(direct), 'Yo Cy, who likes red');
  } finally {
    await serving.close();
  }
});

test('questions several processes ask at once come in one result; each is answered under its key; a key asked twice at once is refused in the program', async () => {
  const { serving, call, post } = await serve();
  try {
    const first = await call('three_at_once', {});
    const requests = first.result!.inputRequests as Record<string, { method: string }>;
    assert.deepEqual(Object.fromEntries(Object.entries(requests).map(([k, v]) => [k, v.method])), { who: 'elicitation/create', what: 'sampling/createMessage', where: 'roots/list' });
    const done = await call('three_at_once', {}, {
      requestState: first.result!.requestState,
      inputResponses: { who: accept({ name: 'Ada' }), what: { role: 'assistant', content: { type: 'text', text: 'tea' }, model: 'm' }, where: { roots: [{ uri: 'file:///w' }] } },
    });
    assert.equal(text(done), 'Ada | tea | file:///w');
    // the second process's question fails in the program (the first one's waits): once the first
    // is answered, the gather gives the first's answer and the second's error, naming the key
    const dup = await call('same_key_twice', {});
    assert.deepEqual(Object.keys(dup.result!.inputRequests as object), ['dup']);
    const failed = await call('same_key_twice', {}, { requestState: dup.result!.requestState, inputResponses: { dup: accept({ name: 'x' }) } });
    assert.match(text(failed), /"name": ?"x"/);
    assert.match(text(failed), /dup already waits for its answer/);
    // a prompt asks the same way
    const prompt = await post('prompts/get', { name: 'asking' });
    assert.equal(prompt.result?.resultType, 'input_required');
    const got = await post('prompts/get', { name: 'asking', inputResponses: { ctx: accept({ c: 'tides' }) }, requestState: prompt.result.requestState });
    assert.match(JSON.stringify(got.result?.messages), /context: tides/);
  } finally {
    await serving.close();
  }
});

test('a client is asked only what its request declares: a run that fails for want of it is -32021 naming the capability; one that falls back is answered', async () => {
  const { serving, call } = await serve();
  try {
    const refused = await call('needs_elicitation', {}, {}, { sampling: {} });
    assert.equal(refused.status, 400);
    assert.equal(refused.error?.code, -32021);
    assert.deepEqual(refused.error?.data?.requiredCapabilities, { elicitation: {} });
    const fallback = await call('falls_back', {}, {}, { sampling: {} });
    assert.deepEqual(Object.values(fallback.result!.inputRequests as Record<string, { method: string }>).map((r) => r.method), ['sampling/createMessage']);
  } finally {
    await serving.close();
  }
});

test('the bounds: a question past the count or the bytes fails in the program and nothing is kept', async () => {
  const { serving, call } = await serve({ maxRuns: 1, maxBytes: 2000 });
  try {
    const held = await call('two_rounds', { greeting: 'Hi' });
    assert.equal(held.result?.resultType, 'input_required');
    const second = await call('long_question', { text: 'short' });
    assert.match(text(second), /refused: .*holds 1 calls waiting/);
    // the held call ends: its slot is free again, but not for a question larger than the bytes bound
    const r2 = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { name: accept({ name: 'A' }) }, requestState: held.result.requestState });
    await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { color: accept({ color: 'c' }) }, requestState: r2.result!.requestState });
    const big = await call('long_question', { text: 'x'.repeat(3000) });
    assert.match(text(big), /refused: .*more than 2000 bytes/);
    assert.equal((await call('long_question', { text: 'short' })).result?.resultType, 'input_required');
  } finally {
    await serving.close();
  }
});

test('the age bound: a paused call its client does not come back to within it is stopped, and its state opens nothing', async () => {
  const { serving, call } = await serve({ maxAgeMs: 30 });
  try {
    const held = await call('two_rounds', { greeting: 'Hi' });
    assert.equal(held.result?.resultType, 'input_required');
    // the call's 30 ms timer was set before its reply was sent: one set now fires after it
    await new Promise((resolve) => setTimeout(resolve, 60));
    const late = await call('two_rounds', { greeting: 'Hi' }, { inputResponses: { name: accept({ name: 'Ada' }) }, requestState: held.result.requestState });
    assert.equal(late.error?.code, -32602);
    assert.match(late.error.message, /names no call waiting/);
  } finally {
    await serving.close();
  }
});

const TASKS = { ...ALL, extensions: { [TASKS_EXTENSION]: {} } };

/** Polls tasks/get until the task leaves `working` (bounded: a task that never does fails the test). */
async function settled(post: (m: string, p: Record<string, unknown>, c?: Record<string, unknown>) => Promise<Reply>, taskId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const got = await post('tasks/get', { taskId }, TASKS);
    if (got.result?.status !== 'working') return got.result!;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`task ${taskId} still working after 500 polls`);
}

test('tasks: a client that declared the extension gets a task and polls it; its questions are answered by tasks/update, partly then wholly; a tool error is a completed task', async () => {
  const { serving, call, post } = await serve();
  try {
    const created = await call('two_answers', { label: 'L' }, {}, TASKS);
    assert.equal(created.result?.resultType, 'task');
    assert.equal('requestState' in created.result, false);
    const taskId = created.result.taskId as string;
    assert.match(taskId, /^[\w-]{22}$/);
    let task = await settled(post, taskId);
    assert.equal(task.status, 'input_required');
    assert.deepEqual(Object.keys(task.inputRequests as object).sort(), ['a', 'b']);
    // a wrong answer is refused and answers nothing
    assert.equal((await post('tasks/update', { taskId, inputResponses: { a: { action: 'perhaps' } } }, TASKS)).error?.code, -32602);
    assert.deepEqual(await post('tasks/update', { taskId, inputResponses: { a: accept({ name: 'Ada' }), stray: accept({}) } }, TASKS).then((r) => r.result?.resultType), 'complete');
    task = await settled(post, taskId);
    assert.equal(task.status, 'input_required');
    assert.deepEqual(Object.keys(task.inputRequests as object), ['b']);
    await post('tasks/update', { taskId, inputResponses: { b: accept({ name: 'Bo' }) } }, TASKS);
    task = await settled(post, taskId);
    assert.equal(task.status, 'completed');
    assert.deepEqual((task.result as { content: unknown }).content, [{ type: 'text', text: 'L: Ada and Bo' }]);
    const failed = await settled(post, (await call('fails', {}, {}, TASKS)).result!.taskId as string);
    assert.equal(failed.status, 'completed');
    assert.equal((failed.result as { isError: boolean }).isError, true);
    assert.match(JSON.stringify(failed.result), /the job failed/);
  } finally {
    await serving.close();
  }
});

test('tasks: without the extension tasks/* and a required task tool are -32021, an optional one answers in place; an unknown or guessed id is -32602; a cancelled task stays cancelled', async () => {
  const { serving, call, post } = await serve();
  try {
    const refused = await post('tasks/get', { taskId: 'x' }, ALL);
    assert.equal(refused.error?.code, -32021);
    const required = await call('only_task', {}, {}, ALL);
    assert.equal(required.error?.code, -32021);
    assert.deepEqual(required.error?.data?.requiredCapabilities, { extensions: { [TASKS_EXTENSION]: {} } });
    // an optional task tool answers in place: its question is an input_required result, not a task
    const inPlace = await call('two_answers', { label: 'L' }, {}, ALL);
    assert.equal(inPlace.result?.resultType, 'input_required');
    assert.equal((await post('tasks/get', { taskId: 'A'.repeat(22) }, TASKS)).error?.code, -32602);
    const taskId = (await call('two_answers', { label: 'L' }, {}, TASKS)).result!.taskId as string;
    assert.equal((await settled(post, taskId)).status, 'input_required');
    assert.equal((await post('tasks/cancel', { taskId }, TASKS)).result?.resultType, 'complete');
    assert.equal((await settled(post, taskId)).status, 'cancelled');
    // answering it now changes nothing: it stays cancelled, with no result
    await post('tasks/update', { taskId, inputResponses: { a: accept({ name: 'A' }), b: accept({ name: 'B' }) } }, TASKS);
    const after = await settled(post, taskId);
    assert.equal(after.status, 'cancelled');
    assert.equal('result' in after, false);
    assert.equal((await post('tasks/cancel', { taskId }, TASKS)).result?.resultType, 'complete', 'cancelling again is acknowledged');
  } finally {
    await serving.close();
  }
});

test('tasks: the bounds: past the count a new task is refused; past its age a task is dropped', async () => {
  const counted = await serve(undefined, { maxTasks: 1 });
  try {
    const first = await counted.call('two_answers', { label: 'L' }, {}, TASKS);
    assert.equal(first.result?.resultType, 'task');
    const second = await counted.call('two_answers', { label: 'M' }, {}, TASKS);
    assert.equal(second.error?.code, -32603);
    assert.match(second.error.message, /keeps 1 tasks/);
  } finally {
    await counted.serving.close();
  }
  const aged = await serve(undefined, { ttlMs: 40 });
  try {
    const task = await aged.call('two_answers', { label: 'L' }, {}, TASKS);
    // the task's 40 ms timer was set before its reply: one set now fires after it
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal((await aged.post('tasks/get', { taskId: task.result!.taskId }, TASKS)).error?.code, -32602);
  } finally {
    await aged.serving.close();
  }
});

test('a question that holds a secret the command line knows reaches the client redacted, as an input_required result or a task\'s inputRequests', async () => {
  const { serving, call, post } = await serve(undefined, undefined, { TURN_SECRET_PAUSED: 'hunter2-secret-value' });
  try {
    const asked = await call('leaky', {});
    assert.equal(asked.result?.resultType, 'input_required');
    assert.doesNotMatch(JSON.stringify(asked), /hunter2/);
    assert.match(JSON.stringify(asked.result.inputRequests), /redacted/);
    const taskId = (await call('leaky_task', {}, {}, TASKS)).result!.taskId as string;
    const task = await settled(post, taskId);
    assert.equal(task.status, 'input_required');
    assert.doesNotMatch(JSON.stringify(task), /hunter2/);
    assert.match(JSON.stringify(task.inputRequests), /redacted/);
  } finally {
    await serving.close();
  }
});
