// The launch grant and the server description, without starting anything: what --allow-run
// grants, how it narrows, and what a launch map may say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { capabilitiesFromFlags, capabilitiesFromPlain, check, narrow, CapabilityError } from '../../runtime/effects/capabilities.js';
import { authorizeLaunch } from '../../runtime/mcp/launch.js';
import { McpError, describeServer, serverSpec } from '../../runtime/mcp/server.js';
import { EffectDenied } from '../../runtime/effects/capabilities.js';

test('--allow-run grants launching a command as written or by its resolved path; nothing else', () => {
  const caps = capabilitiesFromFlags({ allowRun: ['node', '/opt/bin/server'] }, '/w');
  assert.equal(check(caps, { kind: 'run', command: 'node', resolved: '/usr/bin/node' }).ok, true);
  assert.equal(check(caps, { kind: 'run', command: 'server', resolved: '/opt/bin/server' }).ok, true);
  const denied = check(caps, { kind: 'run', command: 'npx', resolved: '/usr/bin/npx' });
  assert.equal(denied.ok, false);
  assert.match((denied as { message: string }).message, /launching npx is not granted \(allowed: node, \/opt\/bin\/server; grant it with --allow-run npx\)/);
  assert.equal(check({}, { kind: 'run', command: 'node' }).ok, false, 'nothing is granted by default');
  assert.equal(check(capabilitiesFromFlags({ allowRun: ['*'] }, '/w'), { kind: 'run', command: 'anything' }).ok, true);
});

test('a run grant narrows and never widens', () => {
  const parent = capabilitiesFromFlags({ allowRun: ['node'] }, '/w');
  assert.deepEqual(narrow(parent, capabilitiesFromPlain({ run: ['node'] }, '/w')).run?.commands, ['node']);
  assert.throws(() => narrow(parent, capabilitiesFromPlain({ run: ['bash'] }, '/w')), (e: Error) => e instanceof CapabilityError && /cannot widen launching to bash/.test(e.message));
  assert.throws(() => narrow({}, { run: { commands: ['node'] } }), /launching commands: it is not granted/);
});

test('a grant may pin the arguments: that command line only; a pinned grant narrows only to itself', () => {
  const caps = capabilitiesFromFlags({ allowRun: ['node server.js --root data', '["/opt/my tool", "a b"]'] }, '/w');
  assert.equal(check(caps, { kind: 'run', command: 'node', args: ['server.js', '--root', 'data'] }).ok, true);
  const other = check(caps, { kind: 'run', command: 'node', args: ['-e', 'x'] });
  assert.equal(other.ok, false);
  assert.match((other as { message: string }).message, /launching node -e x is not granted \(allowed: .*; only with the arguments granted; grant these with --allow-run 'node -e x'\)/);
  assert.equal(check(caps, { kind: 'run', command: '/opt/my tool', args: ['a b'] }).ok, true);
  assert.equal(check(caps, { kind: 'run', command: '/opt/my tool', args: [] }).ok, false);
  assert.equal(check(capabilitiesFromFlags({ allowRun: ['node'] }, '/w'), { kind: 'run', command: 'node', args: ['-e', 'x'] }).ok, true, 'a bare command: the arguments a literal launch map writes');
  assert.deepEqual(narrow(capabilitiesFromFlags({ allowRun: ['node'] }, '/w'), { run: { commands: ['node s.js'] } }).run?.commands, ['node s.js']);
  assert.throws(() => narrow(caps, { run: { commands: ['node'] } }), /cannot widen launching to node/);
  assert.throws(() => narrow(caps, { run: { commands: ['node server.js'] } }), /cannot widen launching to node server\.js/);
  assert.throws(() => capabilitiesFromFlags({ allowRun: ['["node", 1]'] }, '/w'), (e: Error) => e instanceof CapabilityError && /JSON grant is a list of strings/.test(e.message));
  assert.throws(() => capabilitiesFromFlags({ allowRun: ['* -e'] }, '/w'), /\* stands alone/);
});

test('a launch map is a command and arguments; a shell line, unknown keys and non-strings are refused', () => {
  assert.deepEqual(serverSpec({ command: 'node', args: ['s.js'] }), { kind: 'stdio', command: 'node', args: ['s.js'], env: {}, passEnv: [] });
  assert.deepEqual(serverSpec('http://127.0.0.1:3001/mcp'), { kind: 'http', url: 'http://127.0.0.1:3001/mcp' });
  assert.throws(() => serverSpec({ command: 'npx -y server' }), (e: Error) => e instanceof McpError && /one executable, not a shell line: write \{"command": "npx", "args": \["-y", "server"\]\}/.test(e.message));
  assert.throws(() => serverSpec({ command: 'node', argv: [] }), /unknown key "argv"/);
  assert.throws(() => serverSpec({ command: 'node', args: [1] }), /"args" .* list of strings/);
  assert.throws(() => serverSpec('ftp://x'), /http\(s\) URL or a launch map/);
  assert.equal(describeServer(serverSpec({ command: 'node', args: ['a b.js', 'stdio'] })), 'node "a b.js" stdio');
});

test('the launched environment holds only the literal env and granted pass_env names; secrets never', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-launch-'));
  const env = { PATH: path.dirname(process.execPath), HOME: '/home/x', TURN_SECRET_API: 's', OPENAI_API_KEY: 'k' };
  const spec = (x: Record<string, unknown>) => serverSpec({ command: 'node', ...x }) as Extract<ReturnType<typeof serverSpec>, { kind: 'stdio' }>;
  // every launch below is of a map written literally in the program (a run knows them from its
  // bundle; test/security/launch-grants.test.ts refuses the others)
  const writtenLaunches = { has: () => true };
  const caps = capabilitiesFromFlags({ allowRun: ['node'], allowEnv: ['HOME'] }, dir);
  const launch = await authorizeLaunch(spec({ env: { LEVEL: 'debug' }, pass_env: ['HOME'] }), { capabilities: caps, cwd: dir, env, writtenLaunches });
  assert.deepEqual(launch.env, { LEVEL: 'debug', HOME: '/home/x' });
  assert.equal(launch.file, path.join(path.dirname(process.execPath), 'node'), 'found on the PATH the run has, started by its absolute path');
  await assert.rejects(authorizeLaunch(spec({ pass_env: ['PATH'] }), { capabilities: caps, cwd: dir, env, writtenLaunches }), (e: Error) => e instanceof EffectDenied && /cannot pass PATH .*not granted/.test(e.message));
  await assert.rejects(authorizeLaunch(spec({ pass_env: ['TURN_SECRET_API'] }), { capabilities: capabilitiesFromFlags({ allowRun: ['node'], allowEnv: ['*'] }, dir), cwd: dir, env, writtenLaunches }), /holds a secret of the run/);
  await assert.rejects(
    authorizeLaunch(spec({ pass_env: ['OPENAI_API_KEY'] }), { capabilities: capabilitiesFromFlags({ allowRun: ['node'], allowEnv: ['*'] }, dir), cwd: dir, env, writtenLaunches, providerKeyNames: new Set(['OPENAI_API_KEY']) }),
    /holds a secret of the run/,
  );
  await assert.rejects(authorizeLaunch(spec({}), { capabilities: {}, cwd: dir, env, writtenLaunches }), /launching node is not granted/);
  await assert.rejects(authorizeLaunch(serverSpec({ command: 'no-such-server-xyz' }) as never, { capabilities: capabilitiesFromFlags({ allowRun: ['*'] }, dir), cwd: dir, env, writtenLaunches }), (e: Error) => e instanceof McpError && /not an executable file on PATH/.test(e.message));
});
