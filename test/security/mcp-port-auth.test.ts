// `turn mcp --port` served every local user: anyone who could reach 127.0.0.1 could call the
// operator's tools with the operator's capabilities and model budget. Now a request must carry the
// bearer token printed at start (or read from --token-file, an owner-only file); without it, or
// with a wrong one, the answer is 401 `WWW-Authenticate: Bearer` before anything of the body is
// read: a client that sends a huge body sees it refused, not swallowed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, turnAsync } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-auth-'));
const served = path.join(dir, 'tools.tn');
fs.writeFileSync(served, 'return { "greet": turn(name: Str) -> Str { return "hello " + name; } };\n');

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGTERM');
});

/** Starts `turn mcp --port 0 ...`; resolves with its URL and everything it said once it says it serves. */
function serve(args: string[]): Promise<{ url: string; said: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', served, '--port', '0', ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let said = '';
    child.stderr.on('data', (c: Buffer) => {
      said += c.toString();
      const url = /over MCP \((http:\/\/127\.0\.0\.1:\d+\/mcp)\)/.exec(said);
      if (url) resolve({ url: url[1], said });
    });
    child.on('exit', () => reject(new Error(`turn mcp exited: ${said}`)));
  });
}

let printed: Promise<{ url: string; token: string }> | undefined;
/** The server started with a token it made and printed. */
function withPrintedToken(): Promise<{ url: string; token: string }> {
  // the token line comes before the line that says serving has begun
  printed ??= serve([]).then(({ url, said }) => ({ url, token: /Authorization: Bearer (\S+)\n/.exec(said)?.[1] ?? '' }));
  return printed;
}

const BODY_BYTES = 64 * 1024 * 1024;

/**
 * POSTs an initialize request announcing a 64 MB body and writes it as fast as the connection
 * takes it, until the server answers. Resolves with the answer and how much of the body was handed
 * to the connection by then: a server that reads the whole body before answering gets all of it.
 */
function postHuge(url: string, headers: Record<string, string>): Promise<{ status: number; authenticate: string | undefined; sent: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(BODY_BYTES), ...headers },
    });
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, authenticate: res.headers['www-authenticate'], sent });
      req.destroy();
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const pump = (): void => {
      while (!answered && sent < BODY_BYTES) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

test('without a token: 401 WWW-Authenticate: Bearer, before the (huge) body is read', async () => {
  const { url } = await withPrintedToken();
  const r = await postHuge(url, {});
  assert.equal(r.status, 401);
  assert.match(r.authenticate ?? '', /^Bearer\b/);
  assert.ok(r.sent < BODY_BYTES / 2, `the server answered before reading the body (${r.sent} of ${BODY_BYTES} bytes sent)`);
});

test('with a wrong token (same length, one character off) or another scheme: 401, body unread', async () => {
  const { url, token } = await withPrintedToken();
  const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  for (const authorization of [`Bearer ${wrong}`, `Basic ${Buffer.from(`x:${token}`).toString('base64')}`, `Bearer`, `Bearer ${token}x`]) {
    const r = await postHuge(url, { authorization });
    assert.equal(r.status, 401, authorization);
    assert.match(r.authenticate ?? '', /^Bearer\b/);
    assert.ok(r.sent < BODY_BYTES / 2, `${authorization}: ${r.sent} bytes sent`);
  }
});

test('with the printed token the SDK client initializes and calls a tool; the token is 32 random bytes', async () => {
  const { url, token } = await withPrintedToken();
  assert.match(token, /^[A-Za-z0-9_-]{43}$/, 'turn mcp printed a token');
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  const client = new Client({ name: 'turn-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const r = (await client.callTool({ name: 'greet', arguments: { name: 'operator' } })) as CallToolResult;
    assert.deepEqual(r.content, [{ type: 'text', text: 'hello operator' }]);
  } finally {
    await client.close();
  }
  // and a client without it cannot even start a session
  const stranger = new Client({ name: 'stranger', version: '1.0.0' });
  await assert.rejects(stranger.connect(new StreamableHTTPClientTransport(new URL(url))));
});

test('--token-file: an owner-only file\'s token is used (and not printed); a file others can read is refused', async () => {
  const file = path.join(dir, 'token');
  const token = 'a-token-chosen-by-the-operator-0123456789';
  fs.writeFileSync(file, token + '\n', { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  const refused = await turnAsync(['mcp', served, '--port', '0', '--token-file', file], { cwd: dir });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /token file .* is accessible to other users \(mode 644\); refusing to use it\. Run: chmod 600/);

  fs.chmodSync(file, 0o600);
  const { url, said } = await serve(['--token-file', file]);
  assert.ok(!said.includes(token), 'a token from a file is not printed');
  const client = new Client({ name: 'turn-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    assert.deepEqual(((await client.callTool({ name: 'greet', arguments: { name: 'file' } })) as CallToolResult).content, [{ type: 'text', text: 'hello file' }]);
  } finally {
    await client.close();
  }
  assert.equal((await postHuge(url, { authorization: 'Bearer not-the-token-from-the-file-0123456789' })).status, 401);
});

test('a token file too short to be a secret is refused; --token-file needs --port', async () => {
  const file = path.join(dir, 'short');
  fs.writeFileSync(file, 'hunter2\n', { mode: 0o600 });
  const short = await turnAsync(['mcp', served, '--port', '0', '--token-file', file], { cwd: dir });
  assert.equal(short.code, 2);
  assert.match(short.stderr, /must hold one token of at least 32 characters/);
  const stdio = await turnAsync(['mcp', served, '--token-file', file], { cwd: dir });
  assert.notEqual(stdio.code, 0);
  assert.match(stdio.stderr, /--token-file goes with --port/);
});
