// Mid-call questions and the tasks extension with `turn mcp --store` (runtime/mcp/serve-next/durable-tasks.ts): a task is a
// durable run keyed by its id, so it outlives a SIGKILL of turn mcp. Driven with raw 2026-07-28
// JSON-RPC over HTTP against a real child `turn mcp --port 0 --store DIR`; the effect is a POST to a
// local server that counts them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { orderService, startServedHttp } from './durable-fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-durable-tasks-'));
const served = path.join(dir, 'agent.tn');
fs.writeFileSync(
  served,
  `let mcp = use "std/mcp";
let NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]};
return {
    "greet": turn(hook: Str) -> Str {
        let placed = call("http_request", null, "POST", hook + "/order", {"body": "greet"});
        let name = mcp.elicit_as("name", "Your name?", NAME);
        let color = mcp.elicit_as("color", "Your colour?", {"type": "object", "properties": {"color": {"type": "string"}}});
        return placed["body"] + " for " + name["content"]["name"] + ", who likes " + color["content"]["color"];
    },
    "task:order": turn(item: Str, hook: Str) -> Str {
        let placed = call("http_request", null, "POST", hook + "/order", {"body": item});
        let confirmed = call("http_request", null, "GET", hook + "/confirm", {});
        return "ordered " + item + ": " + placed["body"] + ", " + confirmed["body"];
    },
    "task:pause": turn(what: Str) -> Str {
        suspend;
        return "resumed " + what;
    },
};
`,
);


type Reply = { result?: Record<string, unknown>; error?: { code: number; message: string } };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** A child turn mcp --port 0 --store `store`, and a raw 2026-07-28 JSON-RPC poster to it. */
async function serve(store: string) {
  const { url, token, child, exited } = await startServedHttp(served, dir, ['--store', store, '--allow-net', '127.0.0.1']);
  let id = 0;
  const post = async (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = TASKS): Promise<Reply> => {
    const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
    const body = {
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: { ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
    };
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const messages = (res.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
      : [JSON.parse(text) as Record<string, unknown>];
    const answer = messages.find((m) => m.id === body.id) as Reply | undefined;
    assert.ok(answer, `an answer to ${method}: ${text}`);
    return answer;
  };
  return {
    post,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls tasks/get until the task is not `working` (bounded by a count of polls, each waiting for a reply). */
async function settled(post: (m: string, p: Record<string, unknown>) => Promise<Reply>, taskId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 2000; i++) {
    const got = await post('tasks/get', { taskId });
    assert.equal(got.error, undefined, JSON.stringify(got.error));
    if (got.result!.status !== 'working') return got.result!;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`task ${taskId} still working after 2000 polls`);
}
const text = (r: Record<string, unknown>): string => ((r.content as { text: string }[] | undefined) ?? []).map((b) => b.text).join('\n');

test('a durable task survives a SIGKILL of turn mcp --store: after a restart tasks/get resumes it from its journal, and the POST lands exactly once', async () => {
  const { server, posts, state } = orderService();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = path.join(dir, 'store-kill');
  try {
    const first = await serve(store);
    const created = await first.post('tools/call', { name: 'order', arguments: { item: 'tea', hook } });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result.taskId as string;
    await state.held; // the POST has landed; the run waits on the GET
    assert.equal((await first.post('tasks/get', { taskId })).result?.status, 'working');
    await first.kill();
    assert.deepEqual(posts, ['tea']);

    state.hold = false;
    const second = await serve(store);
    try {
      const task = await settled(second.post, taskId);
      assert.equal(task.status, 'completed', JSON.stringify(task));
      assert.equal(text(task.result as Record<string, unknown>), 'ordered tea: order 1, confirmed');
      assert.deepEqual(posts, ['tea'], 'the resumed run replayed the journaled POST, never sent it again');
      // asked again: answered from the store, nothing performed
      assert.equal((await second.post('tasks/get', { taskId })).result?.status, 'completed');
      assert.deepEqual(posts, ['tea']);
      // the tasks methods still need the extension declared
      assert.equal((await second.post('tasks/get', { taskId }, {})).error?.code, -32021);
    } finally {
      await second.stop();
    }

    // the attack: the task id on a server of another store names nothing there
    const other = await serve(path.join(dir, 'store-other'));
    try {
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const r = await other.post(method, { taskId });
        assert.equal(r.error?.code, -32602, `${method}: ${JSON.stringify(r)}`);
        assert.match(r.error.message, /no such task/);
      }
      assert.equal((await other.post('tasks/update', { taskId, inputResponses: {} })).error?.code, -32602);
      // nor does a made-up or malformed id
      assert.equal((await other.post('tasks/get', { taskId: 'A'.repeat(22) })).error?.code, -32602);
      assert.equal((await other.post('tasks/get', { taskId: { $ne: null } })).error?.code, -32602);
    } finally {
      await other.stop();
    }
  } finally {
    server.close();
  }
});

test('a durable task that suspends is input_required across a restart; tasks/update declined leaves it, accepted resumes it; a cancelled one stays cancelled', async () => {
  const store = path.join(dir, 'store-pause');
  const first = await serve(store);
  let taskId: string;
  let doomed: string;
  try {
    taskId = (await first.post('tools/call', { name: 'pause', arguments: { what: 'y' } })).result!.taskId as string;
    doomed = (await first.post('tools/call', { name: 'pause', arguments: { what: 'z' } })).result!.taskId as string;
    const task = await settled(first.post, taskId);
    assert.equal(task.status, 'input_required');
    const asked = (task.inputRequests as Record<string, { method: string; params: { message: string } }>).resume;
    assert.equal(asked.method, 'elicitation/create');
    assert.match(asked.params.message, /pause suspended \(run [\w-]+\) and waits for you: go on\?/);
    assert.equal((await settled(first.post, doomed)).status, 'input_required');
  } finally {
    await first.kill();
  }
  const second = await serve(store);
  try {
    assert.equal((await settled(second.post, taskId)).status, 'input_required', 'the question outlives the restart');
    // a malformed answer is refused; a declined one leaves the run suspended
    assert.equal((await second.post('tasks/update', { taskId, inputResponses: { resume: { action: 'perhaps' } } })).error?.code, -32602);
    assert.equal((await second.post('tasks/update', { taskId, inputResponses: { resume: { action: 'decline' } } })).error, undefined);
    assert.equal((await settled(second.post, taskId)).status, 'input_required');
    await second.post('tasks/update', { taskId, inputResponses: { resume: { action: 'accept', content: { resume: true } } } });
    const done = await settled(second.post, taskId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(text(done.result as Record<string, unknown>), 'resumed y');

    assert.equal((await second.post('tasks/cancel', { taskId: doomed })).error, undefined);
    assert.equal((await second.post('tasks/get', { taskId: doomed })).result?.status, 'cancelled');
    // cancelled is final: an answer resumes nothing
    await second.post('tasks/update', { taskId: doomed, inputResponses: { resume: { action: 'accept', content: { resume: true } } } });
    assert.equal((await settled(second.post, doomed)).status, 'cancelled');
  } finally {
    await second.stop();
  }
});

const ALL = { elicitation: {}, sampling: {}, roots: {} };
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

test('a durable served run that asks mid-call is input_required; the state names the run; the answer is journaled, and a retry after a SIGKILL resumes the run: one POST', async () => {
  const { server, posts, state } = orderService();
  state.hold = false;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = path.join(dir, 'store-ask');
  const KEY = { 'turn/idempotency-key': 'greet-1' };
  try {
    const first = await serve(store);
    let state2: string;
    try {
      const asked = await first.post('tools/call', { name: 'greet', arguments: { hook }, _meta: KEY }, ALL);
      assert.equal(asked.result?.resultType, 'input_required', JSON.stringify(asked));
      assert.deepEqual(Object.keys(asked.result.inputRequests as object), ['name']);
      const claim = JSON.parse(Buffer.from((asked.result.requestState as string).split('.')[1], 'base64url').toString()) as Record<string, unknown>;
      assert.match(String(claim.durable), /^[\w-]+$/, 'the state names the durable run');
      assert.deepEqual(posts, ['greet']);
      // the retry with the answer: the run goes on (in memory) to its next question
      const next = await first.post('tools/call', { name: 'greet', arguments: { hook }, inputResponses: { name: accept({ name: 'Ada' }) }, requestState: asked.result.requestState }, ALL);
      assert.deepEqual(Object.keys(next.result!.inputRequests as object), ['color']);
      state2 = next.result!.requestState as string;
    } finally {
      await first.kill();
    }
    const second = await serve(store);
    try {
      // after the restart nothing waits in memory: the state's run is resumed from its journal; the
      // first answer and the POST are replayed, the question cut short is asked again and answered from the retry
      const done = await second.post('tools/call', { name: 'greet', arguments: { hook }, inputResponses: { color: accept({ color: 'teal' }) }, requestState: state2 }, ALL);
      assert.equal(done.error, undefined, JSON.stringify(done.error));
      assert.deepEqual(done.result?.content, [{ type: 'text', text: 'order 1 for Ada, who likes teal' }], JSON.stringify(done));
      assert.deepEqual(posts, ['greet'], 'the journaled POST was not sent again');
      // the same key again: answered from the stored run, nothing asked, nothing sent
      const again = await second.post('tools/call', { name: 'greet', arguments: { hook }, _meta: KEY }, ALL);
      assert.deepEqual(again.result?.content, [{ type: 'text', text: 'order 1 for Ada, who likes teal' }]);
      assert.deepEqual(posts, ['greet']);
      // the state sent back with other arguments opens nothing
      const other = await second.post('tools/call', { name: 'greet', arguments: { hook: hook + '/x' }, inputResponses: { color: accept({ color: 'red' }) }, requestState: state2 }, ALL);
      assert.equal(other.error?.code, -32602, JSON.stringify(other));
    } finally {
      await second.stop();
    }
    // the attack: that state on a server of another store does not verify there (-32602), and runs nothing
    const elsewhere = await serve(path.join(dir, 'store-ask-other'));
    try {
      const r = await elsewhere.post('tools/call', { name: 'greet', arguments: { hook }, inputResponses: { color: accept({ color: 'red' }) }, requestState: state2 }, ALL);
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
      assert.deepEqual(posts, ['greet']);
    } finally {
      await elsewhere.stop();
    }
  } finally {
    server.close();
  }
});

test('tasks/cancel stops a durable task running in this process: it stays cancelled, after a restart too, and is never resumed', async () => {
  const { server, posts, state } = orderService();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = path.join(dir, 'store-cancel');
  try {
    const first = await serve(store);
    let taskId: string;
    try {
      taskId = (await first.post('tools/call', { name: 'order', arguments: { item: 'pie', hook } })).result!.taskId as string;
      await state.held; // the POST has landed; the run waits on the GET
      assert.equal((await first.post('tasks/cancel', { taskId })).error, undefined);
      assert.equal((await settled(first.post, taskId)).status, 'cancelled');
    } finally {
      await first.kill();
    }
    state.hold = false;
    const second = await serve(store);
    try {
      assert.equal((await settled(second.post, taskId)).status, 'cancelled');
      assert.deepEqual(posts, ['pie']);
    } finally {
      await second.stop();
    }
  } finally {
    server.close();
  }
});
