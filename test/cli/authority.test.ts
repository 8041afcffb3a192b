// Identities and capabilities through the real `turn` command: the secret reaches the server's
// header while the program only holds a handle, and no leak path puts it anywhere else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { ROOT } from './run-cli.js';

const SECRET = 'tn-secret-5f1c2e9a7b';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-authority-'));
let server: http.Server;
let port = 0;
const seenAuthorization: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    seenAuthorization.push(String(req.headers.authorization ?? ''));
    res.setHeader('content-type', 'application/json');
    // An echoing server: the CLI must redact the secret from what the program gets back.
    res.end(JSON.stringify({ path: req.url, echoed: req.headers.authorization ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.close();
});

function run(source: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string; trace: string }> {
  const file = path.join(tmp, `p${Math.random().toString(36).slice(2)}.tn`);
  const trace = file + '.trace';
  fs.writeFileSync(file, source.replaceAll('PORT', String(port)));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), 'run', file, '--trace-file', trace, ...args], {
      env: { ...process.env, TURN_SECRET_GITHUB: SECRET, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, trace: fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '' }));
  });
}

const CALL = `
let net = use "std/net";
let gh = grant identity::bearer("github");
let reply = net.get_json(gh, "http://127.0.0.1:PORT/user");
call("echo", reply["path"]);
call("echo", reply["echoed"]);
return reply;`;

test('the secret arrives in the bearer header while the program only ever held the handle', async () => {
  const before = seenAuthorization.length;
  const r = await run(CALL, ['--allow-net', '127.0.0.1:*', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(seenAuthorization.slice(before), [`Bearer ${SECRET}`]);
  assert.equal(r.stdout.split('\n')[0], '/user');
  assert.match(r.stdout, /«redacted:github»/, 'the echoed secret is redacted');
  for (const where of [r.stdout, r.stderr, r.trace]) assert.ok(!where.includes(SECRET), 'no occurrence of the secret');
});

test('without a network capability the request is refused before anything is sent, as a catchable error', async () => {
  const before = seenAuthorization.length;
  const r = await run(`
    let net = use "std/net";
    try { net.get(grant identity::bearer("github"), "http://127.0.0.1:PORT/x"); }
    catch (e) { call("echo", e["type"] + ": " + e["message"]); }`, []);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^EffectError: .*network access to 127\.0\.0\.1.* is not granted/);
  assert.equal(seenAuthorization.length, before, 'nothing reached the server');
});

test('a denied approval ends in a clear, catchable error', async () => {
  const r = await run(`
    let net = use "std/net";
    try { net.get(null, "http://127.0.0.1:PORT/x"); } catch (e) { call("echo", e["message"]); }`,
    ['--allow-net', '127.0.0.1:*', '--approve-effects', 'network', '--approve', 'none']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /was not approved/);
});

// Every way a program might try to get the secret out. The VM holds only kind and name, so the
// secret can never be in its values; these must all fail (statically or at run time) and print
// nothing secret anywhere.
const LEAKS: Record<string, string> = {
  echo: 'call("echo", grant identity::bearer("github"));',
  concatenate: 'let gh = grant identity::bearer("github"); call("echo", "token: " + gh);',
  compare: 'let gh = grant identity::bearer("github"); call("echo", gh == "github");',
  serialize: 'call("echo", call("json_stringify", {"auth": grant identity::bearer("github")}));',
  context: 'context.append(grant identity::bearer("github"));',
  prompt: 'let gh = grant identity::bearer("github"); let x = infer Str { gh; };',
  // a message carries the handle itself (capability passing); it still cannot leave through the receiver
  send: 'let gh = grant identity::bearer("github"); let child = spawn turn() { return receive; }; send child, {"auth": gh}; return gather child;',
  'to_string via a map': 'let m = {"k": grant identity::bearer("github")}; call("echo", call("to_string", m));',
  'result as JSON': 'return {"auth": grant identity::bearer("github")};',
  'file write': 'let fs = use "std/fs"; fs.write(null, "' + path.join(tmp, 'leak.txt') + '", grant identity::bearer("github"));',
};

for (const [name, source] of Object.entries(LEAKS)) {
  test(`leak attempt "${name}" puts the secret nowhere`, async () => {
    const r = await run(source, ['--json', '--allow-write', tmp]);
    const leakFile = path.join(tmp, 'leak.txt');
    const written = fs.existsSync(leakFile) ? fs.readFileSync(leakFile, 'utf8') : '';
    for (const where of [r.stdout, r.stderr, r.trace, written]) assert.ok(!where.includes(SECRET), `${name}: the secret leaked`);
    assert.ok(r.code === 1 || r.code === 2, `${name}: the attempt is an error (exit ${r.code}: ${r.stdout} ${r.stderr})`);
    assert.match(r.stderr, /identity handle|got Identity/, `${name}: the error says why`);
  });
}
