// `turn mcp --store DIR` (docs/mcp.md, "Durable served agents"): each call a durable run under the
// call's idempotency key, driven by the official SDK client over stdio. The kill test: a call whose
// closure POSTs to a local HTTP server and then waits on a GET the server holds; turn mcp is killed
// (SIGKILL) once the GET arrives, started again, and the client retries with the same key: the run
// resumes from its journal and the POST has landed exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, turnAsync } from '../cli/run-cli.js';
import { orderService, startServedHttp } from './durable-fixtures.js';
import { openStore } from '../../runtime/store/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-durable-'));
const served = path.join(dir, 'agent.tn');
fs.writeFileSync(
  served,
  `// orders an item: one POST (an effect that must not be repeated), then a wait on a GET
return {
    "order": turn(item: Str, hook: Str) -> Str {
        let placed = call("http_request", null, "POST", hook + "/order", {"body": item});
        let confirmed = call("http_request", null, "GET", hook + "/confirm", {});
        return "ordered " + item + ": " + placed["body"] + ", " + confirmed["body"];
    },
    "pause": turn(what: Str) -> Str {
        call("echo", "before " + what);
        suspend;
        return "resumed " + what;
    },
};
`,
);


async function connect(args: string[]): Promise<{ client: Client; transport: StdioClientTransport }> {
  const client = new Client({ name: 'turn-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', served, ...args], cwd: dir, stderr: 'pipe' });
  await client.connect(transport);
  return { client, transport };
}
const text = (r: CallToolResult): string => r.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
const KEY = 'turn/idempotency-key';
const TRACE = `00-${'4bf92f3577b34da6a3ce929d0e0e4736'}-${'00f067aa0ba902b7'}-01`;

test('a SIGKILL of turn mcp --store mid-call, and the client retry with the same key: the POST lands exactly once and the call completes', async () => {
  const { server, posts, state } = orderService();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = path.join(dir, 'store-kill');
  const args = ['--store', store, '--allow-net', '127.0.0.1'];
  try {
    const first = await connect(args);
    const call = first.client.callTool({ name: 'order', arguments: { item: 'tea', hook }, _meta: { [KEY]: 'order-1' } });
    call.catch(() => undefined);
    await state.held; // the POST has landed and the run waits on the GET
    assert.deepEqual(posts, ['tea']);
    process.kill(first.transport.pid!, 'SIGKILL');
    await assert.rejects(call);
    await first.client.close().catch(() => undefined);

    state.hold = false;
    const second = await connect(args);
    try {
      const r = (await second.client.callTool({ name: 'order', arguments: { item: 'tea', hook }, _meta: { [KEY]: 'order-1' } })) as CallToolResult;
      assert.equal(r.isError, undefined, text(r));
      assert.equal(text(r), 'ordered tea: order 1, confirmed');
      assert.deepEqual(posts, ['tea'], 'the retry resumed the run: the journaled POST was not sent again');
      // asked again once more: answered from the stored run, nothing performed
      const again = (await second.client.callTool({ name: 'order', arguments: { item: 'tea', hook }, _meta: { [KEY]: 'order-1' } })) as CallToolResult;
      assert.equal(text(again), 'ordered tea: order 1, confirmed');
      assert.deepEqual(posts, ['tea']);
      // a key reused for other arguments is a protocol error, and nothing runs
      await assert.rejects(second.client.callTool({ name: 'order', arguments: { item: 'coffee', hook }, _meta: { [KEY]: 'order-1' } }), /idempotency key was used for another call/);
      // a malformed key is refused before anything runs
      await assert.rejects(second.client.callTool({ name: 'order', arguments: { item: 'coffee', hook }, _meta: { [KEY]: 'has space' } }), /idempotency-key"\] must be/);
      assert.deepEqual(posts, ['tea']);
      // another key is another call
      const other = (await second.client.callTool({ name: 'order', arguments: { item: 'tea', hook }, _meta: { [KEY]: 'order-2', traceparent: TRACE } })) as CallToolResult;
      assert.equal(text(other), 'ordered tea: order 2, confirmed');
      assert.deepEqual(posts, ['tea', 'tea']);
    } finally {
      await second.client.close();
    }
    // the served runs are stored like any other: turn runs lists them
    const listed = await turnAsync(['runs', '--store', store], { cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((listed.stdout.match(/\bdone\b/g) ?? []).length, 2, listed.stdout);
    // each under its key and tool, with the caller's trace context when it sent one
    const opened = openStore(store);
    try {
      const served = opened.listRuns().map((r) => r.meta.mcp as Record<string, unknown>);
      assert.deepEqual(served.map((m) => [m.key, m.tool, m.traceparent]).sort(), [['client:order-1', 'order', undefined], ['client:order-2', 'order', TRACE]]);
    } finally {
      opened.close();
    }
  } finally {
    server.close();
  }
});

test('without a key of its own, a call delivered again after a restart is a new call (a request id alone never matches another connection\'s call)', async () => {
  const { server, posts, state } = orderService();
  state.hold = false;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const args = ['--store', path.join(dir, 'store-nokey'), '--allow-net', '127.0.0.1'];
  try {
    for (const item of ['tea', 'cake']) {
      // each connection numbers its requests from 0: the same request id, two different calls
      const { client } = await connect(args);
      try {
        const r = (await client.callTool({ name: 'order', arguments: { item, hook } })) as CallToolResult;
        assert.match(text(r), new RegExp(`^ordered ${item}: `));
      } finally {
        await client.close();
      }
    }
    assert.deepEqual(posts, ['tea', 'cake']);
  } finally {
    server.close();
  }
});

test('a served run that suspends asks the client (elicitation) and is resumed through the protocol; declined, it stays suspended', async () => {
  const store = path.join(dir, 'store-pause');
  const { client } = await connect(['--store', store]);
  const asked: string[] = [];
  let answer: 'accept' | 'decline' = 'decline';
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return answer === 'accept' ? { action: 'accept', content: { resume: true } } : { action: 'decline' };
  });
  try {
    const declined = (await client.callTool({ name: 'pause', arguments: { what: 'x' }, _meta: { [KEY]: 'p-1' } })) as CallToolResult;
    assert.equal(declined.isError, true);
    assert.match(text(declined), /declined: the run stays suspended \(run \S+\)/);
    answer = 'accept';
    const resumed = (await client.callTool({ name: 'pause', arguments: { what: 'x' }, _meta: { [KEY]: 'p-1' } })) as CallToolResult;
    assert.equal(text(resumed), 'resumed x');
    assert.equal(asked.length, 2);
    assert.match(asked[0], /pause suspended \(run \S+\) and waits for you/);
  } finally {
    await client.close();
  }
});

test('turn mcp --store refuses a store folder another process holds, before serving', async () => {
  const store = path.join(dir, 'store-held');
  const { client } = await connect(['--store', store]);
  try {
    const second = await turnAsync(['mcp', served, '--store', store], { cwd: dir });
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /--store .*store-held/);
  } finally {
    await client.close();
  }
});

// ---- the 2026-07-28 revision: the official 2.x client negotiates it with turn mcp --port

async function serveHttp(store: string, extra: string[] = []): Promise<{ url: URL; token: string; stop(): void; kill(): void }> {
  const { url, token, child } = await startServedHttp(served, dir, ['--store', store, ...extra]);
  return { url: new URL(url), token, stop: () => child.kill('SIGTERM'), kill: () => child.kill('SIGKILL') };
}

/** A 2.x client (versions negotiated: server/discover first) whose requests pass through `rewrite`. */
async function modernClient(url: URL, token: string, answer: () => 'accept' | 'decline', rewrite: (body: Record<string, unknown>) => void = () => undefined) {
  const sdk = await import('@modelcontextprotocol/client');
  const client = new sdk.Client({ name: 'turn-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('elicitation/create', () => (answer() === 'accept' ? { action: 'accept', content: { resume: true } } : { action: 'decline' }));
  const fetchThrough = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as Record<string, unknown>;
      rewrite(body);
      init = { ...init, body: JSON.stringify(body) };
    }
    return fetch(input, init);
  };
  await client.connect(new sdk.StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: fetchThrough }));
  return client;
}

test('2026-07-28: a served run that suspends is an input_required result; the client\'s retry with the answer and the signed requestState resumes it', async () => {
  const server = await serveHttp(path.join(dir, 'store-modern'));
  let answer: 'accept' | 'decline' = 'decline';
  const states: string[] = [];
  const client = await modernClient(server.url, server.token, () => answer, (body) => {
    const state = (body.params as Record<string, unknown> | undefined)?.requestState;
    if (typeof state === 'string') states.push(state);
  });
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const declined = await client.callTool({ name: 'pause', arguments: { what: 'y' }, _meta: { [KEY]: 'm-1' } });
    assert.equal(declined.isError, true);
    assert.match(JSON.stringify(declined.content), /declined: the run stays suspended/);
    answer = 'accept';
    const resumed = await client.callTool({ name: 'pause', arguments: { what: 'y' }, _meta: { [KEY]: 'm-1' } });
    assert.deepEqual(resumed.content, [{ type: 'text', text: 'resumed y' }]);
    // both retries carried a requestState: signed (v1.<payload>.<mac>), naming the run
    assert.equal(states.length, 2);
    assert.match(states[0], /^v1\.[\w-]+\.[\w-]+$/);
  } finally {
    await client.close();
    server.stop();
  }
});

test('2026-07-28: a forged or altered requestState resumes nothing (-32602), and one minted for another call is refused', async () => {
  const server = await serveHttp(path.join(dir, 'store-forged'));
  let minted: string | undefined;
  // the hostile client: flips one character of the signature of every state it sends back
  const client = await modernClient(server.url, server.token, () => 'accept', (body) => {
    const params = body.params as Record<string, unknown> | undefined;
    if (typeof params?.requestState === 'string') {
      minted ??= params.requestState;
      const s = params.requestState;
      params.requestState = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.slice(-1);
    }
  });
  try {
    await assert.rejects(client.callTool({ name: 'pause', arguments: { what: 'z' }, _meta: { [KEY]: 'f-1' } }), /Invalid or expired requestState/);
  } finally {
    await client.close();
  }
  // the genuine state of that call, sent back with another call's arguments
  assert.ok(minted);
  const replay = await modernClient(server.url, server.token, () => 'accept', (body) => {
    const params = body.params as Record<string, unknown> | undefined;
    if (params && (params.arguments as Record<string, unknown> | undefined)?.what === 'other') {
      params.requestState = minted;
      params.inputResponses = { resume: { action: 'accept', content: { resume: true } } };
    }
  });
  try {
    await assert.rejects(replay.callTool({ name: 'pause', arguments: { what: 'other' } }), /requestState is for another call/);
  } finally {
    await replay.close();
    server.stop();
  }
});

test('2026-07-28 over HTTP: a SIGKILL of turn mcp --store mid-call, restarted, and the client retry with the same key: exactly one POST', async () => {
  const { server, posts, state } = orderService();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = path.join(dir, 'store-modern-kill');
  try {
    const first = await serveHttp(store, ['--allow-net', '127.0.0.1']);
    const client = await modernClient(first.url, first.token, () => 'decline');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const call = client.callTool({ name: 'order', arguments: { item: 'jam', hook }, _meta: { [KEY]: 'm-order' } });
    call.catch(() => undefined);
    await state.held;
    first.kill();
    await assert.rejects(call);
    await client.close().catch(() => undefined);
    assert.deepEqual(posts, ['jam']);

    state.hold = false;
    const second = await serveHttp(store, ['--allow-net', '127.0.0.1']);
    const retry = await modernClient(second.url, second.token, () => 'decline');
    try {
      const r = await retry.callTool({ name: 'order', arguments: { item: 'jam', hook }, _meta: { [KEY]: 'm-order' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'ordered jam: order 1, confirmed' }]);
      assert.deepEqual(posts, ['jam'], 'the retry resumed the run from its journal');
    } finally {
      await retry.close();
      second.stop();
    }
  } finally {
    server.close();
  }
});
