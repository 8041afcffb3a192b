// MCP servers are outside the run's trust: a reply of any size or depth, a server that crashes
// mid-call, a flood of notifications. Each ends as a located error the program can catch (or a
// value), the durable run stays resumable, and the trace stays small. The servers are the MCP
// project's filesystem server (a 12 MB file) and fixtures/hostile-server.mjs (the SDK's server,
// misbehaving on request), both launched by the built `turn` command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { JS_STACK, turnAsync } from '../cli/run-cli.js';
import { BoundedLineReader, idCandidates } from '../../runtime/mcp/lines.js';
import { LaunchedStdioTransport } from '../../runtime/mcp/stdio.js';
import { NOTICE_TEXT_MAX, NoticeBucket } from '../../runtime/mcp/notices.js';
import { FILESYSTEM, NODE, launchMap } from './servers.js';

const HOSTILE = path.join(__dirname, 'fixtures', 'hostile-server.mjs');
const hostile = JSON.stringify({ command: NODE, args: [HOSTILE] });

function workspace(): { dir: string; env: NodeJS.ProcessEnv; write(name: string, source: string): string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-hostile-'));
  return {
    dir,
    env: { TURN_SCHEMA_DIR: path.join(dir, '.schemas') },
    write(name, source) {
      fs.writeFileSync(path.join(dir, name), source);
      return name;
    },
  };
}

const events = (trace: string) =>
  fs
    .readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A folder with a 12 MB log (12,582,912 bytes of text lines) and a small note, for the filesystem server. */
function bigLogFolder(): { root: string; log: string; note: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-hostile-fs-')));
  const line = 'x'.repeat(63) + '\n';
  fs.writeFileSync(path.join(root, 'big.log'), line.repeat((12 * 1024 * 1024) / line.length));
  fs.writeFileSync(path.join(root, 'note.txt'), 'the small note');
  return { root, log: path.join(root, 'big.log'), note: path.join(root, 'note.txt') };
}

test('a 12 MB file read by the filesystem server is a catchable error naming the bound; a durable run killed after it resumes', async () => {
  const w = workspace();
  const fsDir = bigLogFolder();
  const file = w.write(
    'p.tn',
    `let files = use schema::mcp(${launchMap([FILESYSTEM, fsDir.root])});
try {
  let big = files.read_text_file(null, ${JSON.stringify(fsDir.log)}, null, null);
  call("echo", "read " + call("len", big.content));
} catch (e) {
  call("echo", "caught: " + e.message);
}
let note = files.read_text_file(null, ${JSON.stringify(fsDir.note)}, null, null);
call("echo", note.content);
`,
  );
  const flags = ['--store', 'st', '--allow-run', NODE];
  // journal writes: 1 the big read's intent, 2 its outcome (the error): killed once that is durable
  const killed = await turnAsync(['run', file, ...flags], { cwd: w.dir, env: { ...w.env, TURN_CRASH_AT: '2:after' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.doesNotMatch(killed.stderr, JS_STACK);
  const id = /run (\S+) \(store/.exec(killed.stderr)?.[1];
  assert.ok(id, killed.stderr);

  const resumed = await turnAsync(['resume', id, '--store', 'st'], { cwd: w.dir, env: w.env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.doesNotMatch(resumed.stderr, JS_STACK);
  const [caught, note, ...rest] = resumed.stdout.split('\n').filter(Boolean);
  assert.match(caught, /^caught: tools\/call read_text_file on .* failed: the server's reply is over 16 MiB \(it was [\d,]+ bytes\).*"max_reply_bytes" in the server's launch map/);
  assert.equal(note, 'the small note', 'the session goes on after the dropped reply');
  assert.deepEqual(rest, []);
});

test('uncaught, the oversized reply is a located run-time error; raised with max_reply_bytes, the file is read whole', async () => {
  const w = workspace();
  const fsDir = bigLogFolder();
  const read = (launch: Record<string, unknown>) => `let files = use schema::mcp(${JSON.stringify(launch)});
let big = files.read_text_file(null, ${JSON.stringify(fsDir.log)}, null, null);
call("echo", "read " + call("len", big.content));
`;
  const launch = { command: NODE, args: [FILESYSTEM, fsDir.root] };
  // the server sends about 25 MB for the file: dropped as it arrives, it never fills the process
  const peak = { ...w.env, NODE_OPTIONS: `--require ${path.join(__dirname, 'fixtures', 'peak-rss.cjs')}` };
  const failed = await turnAsync(['run', w.write('small.tn', read(launch)), '--store', 'st', '--allow-run', NODE], { cwd: w.dir, env: peak });
  assert.equal(failed.code, 1, failed.stderr);
  const peakKb = Number(/peak-rss-kb (\d+)/.exec(failed.stderr)?.[1]);
  assert.ok(peakKb > 0 && peakKb < 250 * 1024, `turn's peak RSS was ${Math.round(peakKb / 1024)} MB, over the 250 MB this test allows`);
  // located at the absorbed call in the program, naming the operation and the `use schema` line
  // (the module's own line is inside the generated module)
  assert.match(failed.stderr, /small\.tn:2:\d+: runtime error: uncaught error: .*"EffectError".*over 16 MiB.*\(in `read_text_file` of the API absorbed at small\.tn:1\)\n {4}at main \(small\.tn:2:\d+\)/);
  assert.doesNotMatch(failed.stderr, JS_STACK);

  const raised = await turnAsync(['run', w.write('raised.tn', read({ ...launch, max_reply_bytes: 64 * 1024 * 1024 })), '--store', 'st', '--allow-run', NODE], { cwd: w.dir, env: w.env });
  assert.equal(raised.code, 0, raised.stderr);
  assert.equal(raised.stdout.trim(), `read ${12 * 1024 * 1024}`);
});

test('structuredContent 8,000 levels deep is a located, catchable error in a durable run; 900 levels is a value', async () => {
  const w = workspace();
  const file = w.write(
    'deep.tn',
    `let server = ${hostile};
let shallow = call("mcp_call", null, server, "deep", {"depth": 900});
call("echo", "bound: " + shallow.text);
try {
  call("mcp_call", null, server, "deep", {"depth": 8000});
} catch (e) {
  call("echo", "caught at line " + e.line + ": " + e.message);
}
call("echo", "done");
`,
  );
  const r = await turnAsync(['run', file, '--store', 'st', '--allow-run', NODE], { cwd: w.dir, env: w.env });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Maximum call stack/);
  const lines = r.stdout.split('\n').filter(Boolean);
  assert.equal(lines[0], 'bound: deep');
  assert.match(lines[1], /^caught at line 5: the reply of tools\/call deep on .* is nested more than 1000 levels deep, the most a value may be \(MAX_JSON_DEPTH\)/);
  assert.equal(lines[2], 'done');
});

test('a server that crashes mid-call: the call is catchable, the next call starts it again, at most 3 times a run', async () => {
  const w = workspace();
  const crash = `try { call("mcp_call", null, server, "crash", {}); } catch (e) { call("echo", "crash: " + e.message); }`;
  const file = w.write(
    'crash.tn',
    `let server = ${hostile};
let first = call("mcp_call", null, server, "pid", {});
${crash}
let second = call("mcp_call", null, server, "pid", {});
call("echo", "restarted: " + (first.text != second.text));
${crash}
${crash}
${crash}
try { call("mcp_call", null, server, "pid", {}); } catch (e) { call("echo", "refused: " + e.message); }
`,
  );
  const trace = path.join(w.dir, 'crash.trace');
  const r = await turnAsync(['run', file, '--allow-run', NODE, '--trace-file', trace], { cwd: w.dir, env: w.env });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean);
  assert.equal(lines.length, 6, r.stdout);
  for (const i of [0, 2, 3, 4]) assert.match(lines[i], /^crash: tools\/call crash on .* failed: .*Connection closed \(the server exited with code 3; it said: hostile: crashing on purpose\)$/);
  assert.equal(lines[1], 'restarted: true');
  assert.match(lines[5], /^refused: the MCP server .* stopped 4 times in this run and was started again 3 times, the most it is: not started again$/);
  const servers = events(trace).filter((e) => e.kind === 'mcp.server');
  assert.deepEqual(
    servers.map((e) => e.state),
    ['started', 'stopped', 'started', 'stopped', 'started', 'stopped', 'started', 'stopped'],
  );
});

test('a flood of progress and log messages leaves a bounded trace: texts clipped, the excess counted', async () => {
  const w = workspace();
  const count = 300;
  const bytes = 40_000;
  const file = w.write(
    'flood.tn',
    `let r = call("mcp_call", null, ${hostile}, "flood", {"count": ${count}, "bytes": ${bytes}});
call("echo", r.text);
`,
  );
  const trace = path.join(w.dir, 'flood.trace');
  const r = await turnAsync(['run', file, '--allow-run', NODE, '--trace-file', trace], { cwd: w.dir, env: w.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'flooded');
  // the server sent 2 x 300 texts of 40 KB (24 MB). Of one server's notifications 32 pass at once
  // and 8 a second after, within the call's 30 s limit: 272 events of about 1.3 KB, under 1 MB
  const size = fs.statSync(trace).size;
  assert.ok(size < 1024 * 1024, `the trace is ${size} bytes`);
  const notices = events(trace).filter((e) => e.kind === 'mcp.progress' || e.kind === 'mcp.log');
  assert.ok(notices.length >= 2, 'some notifications are in the trace');
  for (const e of notices) {
    const text = (e.kind === 'mcp.progress' ? e.message : e.data) as string;
    assert.ok(text.startsWith('x'.repeat(NOTICE_TEXT_MAX) + '… (38,976 more characters)'), text.slice(NOTICE_TEXT_MAX - 10, NOTICE_TEXT_MAX + 40));
  }
  const dropped = notices.reduce((n, e) => n + ((e.dropped as number | undefined) ?? 0), 0);
  assert.ok(dropped > 0, 'held-back notifications are counted');
  assert.ok(dropped + notices.length <= 2 * count);
});

// A raw server: each tools/call names how it is answered. `big-last` and `big-first` answer with
// 5,000 bytes of text, the id at the end (as the TypeScript SDK writes) or at the start (as others
// do); `noisy` sends a 5,000-byte log notification, then a small answer; `small` answers small.
const RAW_SERVER = `
let buf = '';
const line = (m) => process.stdout.write(m + '\\n');
const text = 'y'.repeat(5000);
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.method === 'initialize') line(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } }));
    if (m.method !== 'tools/call') continue;
    const name = m.params.name;
    if (name === 'big-last') line('{"result":{"content":[{"type":"text","text":"' + text + '"}]},"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + '}');
    else if (name === 'big-first') line('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"text","text":"' + text + '"}]}}');
    else {
      if (name === 'noisy') line(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } }));
      line(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: name }] } }));
    }
  }
});
`;

test('a message over the transport bound fails only the request it answers (id last or first); an oversized notification fails none', async () => {
  const w = workspace();
  const script = path.join(w.dir, 'raw-server.js');
  fs.writeFileSync(script, RAW_SERVER);
  const transport = new LaunchedStdioTransport({ file: process.execPath, args: [script], env: {}, cwd: w.dir }, 1024);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  try {
    const call = (name: string) => client.callTool({ name, arguments: {} });
    const [last, small, first, noisy] = await Promise.allSettled([call('big-last'), call('small'), call('big-first'), call('noisy')]);
    for (const r of [last, first]) {
      assert.ok(r.status === 'rejected', 'the oversized reply fails its call');
      assert.match(String(r.reason), /the server's reply is over 1,024 bytes \(it was 5,0\d\d bytes\), the most one MCP message may be/);
    }
    assert.deepEqual(small.status === 'fulfilled' && small.value.content, [{ type: 'text', text: 'small' }]);
    assert.deepEqual(noisy.status === 'fulfilled' && noisy.value.content, [{ type: 'text', text: 'noisy' }]);
  } finally {
    await client.close();
  }
});

// A Streamable HTTP server answering with messages over the 16 MiB bound: an SSE event
// (`big-sse`), a JSON body (`big-json`), an SSE notification before a small reply (`noisy-sse`).
function oversizedHttpServer(): Promise<{ url: string; close(): void }> {
  const huge = 'z'.repeat(17 * 1024 * 1024);
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const m = JSON.parse(body) as { id?: number; method: string; params?: { name?: string; protocolVersion?: string } };
      const reply = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: m.id, result });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'initialize') {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(reply({ protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'huge', version: '1' } }));
      }
      const name = m.params?.name;
      const text = (t: string) => reply({ content: [{ type: 'text', text: t }] });
      if (name === 'big-json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(text(huge));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (name === 'noisy-sse') res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: huge } })}\n\n`);
      res.end(`event: message\ndata: ${text(name === 'big-sse' ? huge : 'small after the noise')}\n\n`);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close() })),
  );
}

test('over Streamable HTTP, an SSE event or a JSON reply over 16 MiB fails its call at once; an oversized notification is dropped', async () => {
  const w = workspace();
  const server = await oversizedHttpServer();
  try {
    const file = w.write(
      'http.tn',
      `let s = ${JSON.stringify(server.url)};
try { call("mcp_call", null, s, "big-sse", {}); } catch (e) { call("echo", "sse: " + e.message); }
try { call("mcp_call", null, s, "big-json", {}); } catch (e) { call("echo", "json: " + e.message); }
let n = call("mcp_call", null, s, "noisy-sse", {});
call("echo", n.text);
`,
    );
    const r = await turnAsync(['run', file, '--allow-net', '127.0.0.1:*'], { cwd: w.dir, env: w.env });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n').filter(Boolean);
    assert.match(lines[0], /^sse: tools\/call big-sse on http:.* failed: the server's reply is over 16 MiB \(it was 17,\d{3},\d{3} bytes\), the most one MCP message may be/);
    assert.match(lines[1], /^json: tools\/call big-json on http:.* failed: .*the server's reply is over 16 MiB/);
    assert.equal(lines[2], 'small after the noise');
  } finally {
    server.close();
  }
});

test('the line reader drops a line over its bound as it arrives and keeps its ends, whatever the chunking', () => {
  const reply = `{"result":{"content":[{"type":"text","text":"${'y'.repeat(5000)}"}]},"jsonrpc":"2.0","id":7}`;
  const stream = Buffer.from(`{"jsonrpc":"2.0","method":"ping"}\n${reply}\n{"jsonrpc":"2.0","id":8,"result":{}}\n`);
  for (const size of [1, 7, 300, stream.length]) {
    const reader = new BoundedLineReader(1024);
    const out = [];
    for (let i = 0; i < stream.length; i += size) out.push(...reader.push(stream.subarray(i, i + size)));
    assert.equal(out.length, 3, `chunks of ${size}`);
    assert.deepEqual(out[0], { kind: 'line', text: '{"jsonrpc":"2.0","method":"ping"}' });
    assert.equal(out[1].kind, 'oversized');
    if (out[1].kind !== 'oversized') return;
    assert.equal(out[1].bytes, Buffer.byteLength(reply));
    assert.ok(out[1].head.length <= 256 && out[1].tail.length <= 256);
    assert.deepEqual(idCandidates(out[1].head, out[1].tail), [7]);
    assert.deepEqual(out[2], { kind: 'line', text: '{"jsonrpc":"2.0","id":8,"result":{}}' });
  }
  // an id written first (other SDKs), a string id, and a text with no id
  assert.deepEqual(idCandidates('{"jsonrpc":"2.0","id":"a-1","result":{"text":"zz', 'zz"}}'), ['a-1']);
  assert.deepEqual(idCandidates('{"result":"zzz', 'zzz"}'), []);
});

test('the notice bucket passes a burst, then a rate, and counts what it held back', () => {
  let t = 0;
  const bucket = new NoticeBucket(3, 2, () => t);
  const passes = () => Array.from({ length: 5 }, () => bucket.take());
  assert.deepEqual(passes(), [{ pass: true, dropped: 0 }, { pass: true, dropped: 0 }, { pass: true, dropped: 0 }, { pass: false }, { pass: false }]);
  t += 1000; // two more tokens: the first says two were held back
  assert.deepEqual(passes(), [{ pass: true, dropped: 2 }, { pass: true, dropped: 0 }, { pass: false }, { pass: false }, { pass: false }]);
});
