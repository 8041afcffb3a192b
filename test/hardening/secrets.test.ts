// Secrets the leak test (test/cli/authority.test.ts) does not cover: encodings a secret travels in,
// model keys, and files that hold secrets. Each program runs through the `turn` command (started
// from source, so the test needs no build) against a local server that reflects what it was sent;
// a secret, or a piece of one, must appear nowhere: standard output and error, the trace, files
// the program wrote, the store's bytes, `turn inspect` and `turn resume --json`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

const ROOT = path.join(__dirname, '..', '..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-hardening-secrets-')));
/** A script that runs the `turn` command from source (`node -e` would take `inspect` for its debugger). */
const LAUNCHER = path.join(tmp, 'turn.mjs');
fs.writeFileSync(
  LAUNCHER,
  `const m = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'cli', 'main.ts')).href)});
(m.runAsProcess ?? m.default.runAsProcess)(process.argv.slice(2));
`,
);
let server: http.Server;
let port = 0;
const seen: Record<string, string>[] = [];

/** The credential the model server was sent (bearer or x-api-key). */
function keyOf(req: http.IncomingMessage): string {
  const auth = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '');
  return auth.replace(/^Bearer /, '');
}

before(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.headers as Record<string, string>);
    const url = req.url ?? '/';
    if (url.startsWith('/echo/')) {
      // an OpenAI-compatible model that repeats its API key in its answer
      req.resume();
      req.on('end', () => {
        const content = JSON.stringify({ value: `my key is ${keyOf(req)}`, confidence: 0.9 });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: 'r1', model: 'm', choices: [{ message: { content }, finish_reason: 'stop' }] }));
      });
      return;
    }
    if (url.startsWith('/deny/')) {
      req.resume();
      req.on('end', () => {
        res.statusCode = 401;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${keyOf(req)}. You can find your API key at ...`, type: 'invalid_request_error' } }));
      });
      return;
    }
    // A server that reflects the request: JSON as JavaScript escapes it, as PHP does (`\/`) and
    // as Python's ensure_ascii does (`\u0022`), and the query string as it arrived (URL-encoded).
    const reflected = { url, headers: req.headers };
    const js = JSON.stringify(reflected);
    const php = js.replace(/\//g, '\\/');
    const ascii = asciiJson(reflected);
    res.setHeader('content-type', 'application/json');
    res.end(url.startsWith('/all') ? `${js}\n${php}\n${ascii}\n${url}` : js);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.close();
});

/** JSON with every character of a string but letters, digits and spaces written as \\uXXXX. */
function asciiJson(v: unknown): string {
  if (typeof v === 'string') return '"' + [...v].map((c) => (/[A-Za-z0-9 ]/.test(c) ? c : '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))).join('') + '"';
  if (Array.isArray(v)) return '[' + v.map(asciiJson).join(',') + ']';
  if (v && typeof v === 'object') return '{' + Object.entries(v).map(([k, x]) => asciiJson(k) + ':' + asciiJson(x)).join(',') + '}';
  return JSON.stringify(v);
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `turn ARGS` from source (cli/main.ts through tsx), in `cwd`, with `env` added to a clean environment. */
function turn(args: string[], env: Record<string, string> = {}, cwd = tmp): Promise<Result> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^TURN_|_API_KEY$/.test(k)) clean[k] = v;
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX, LAUNCHER, ...args], {
      cwd,
      env: { ...clean, TURN_STORE_DIR: path.join(tmp, 'default-store'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let counter = 0;
function workDir(): string {
  const dir = path.join(tmp, `w${counter++}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function program(dir: string, source: string): string {
  const file = path.join(dir, 'main.tn');
  fs.writeFileSync(file, source.replaceAll('PORT', String(port)));
  return file;
}

/** Every file under `dir`, as bytes read as latin1 (SQLite stores text as is). */
function bytesUnder(dir: string): string {
  if (!fs.existsSync(dir)) return '';
  let out = '';
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isFile()) out += fs.readFileSync(p).toString('latin1') + '\n';
  }
  return out;
}

function assertNowhere(places: Record<string, string>, needles: Record<string, string>): void {
  for (const [where, text] of Object.entries(places)) {
    for (const [what, needle] of Object.entries(needles)) {
      assert.ok(!text.includes(needle), `${what} (${JSON.stringify(needle)}) leaked into ${where}:\n${text.slice(Math.max(0, text.indexOf(needle) - 200), text.indexOf(needle) + 200)}`);
    }
  }
}

// A base64 decoder written in Turn: what a program does with a header a server reflects.
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
const DECODER = `
let B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
let ASCII = ${JSON.stringify(ASCII)};
let POW2 = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192];
let b64val = {};
let i = 0;
while i < 64 {
    let b64val = call("map_set", b64val, call("str_slice", B64, i, i + 1), i);
    let i = i + 1;
}
let chr = turn(code: Num) -> Str {
    if code < 32 or code > 126 { return "?"; }
    return call("str_slice", ASCII, code - 32, code - 31);
};
let decode = turn(s: Str) -> Str {
    let chars = call("str_split", s, "");
    let bits = 0;
    let nbits = 0;
    let out = "";
    let j = 0;
    while j < call("len", chars) {
        let v = call("map_get", b64val, chars[j]);
        if v != null {
            let bits = bits * 64 + v;
            let nbits = nbits + 6;
            if nbits >= 8 {
                let p = POW2[nbits - 8];
                let byte = call("floor", bits / p);
                let out = out + chr(byte);
                let bits = bits - byte * p;
                let nbits = nbits - 8;
            }
        }
        let j = j + 1;
    }
    return out;
};
`;

test('a basic identity reflected base64-encoded: decoded, cut in pieces, printed, remembered, written, suspended, inspected, resumed: the secret is nowhere', async () => {
  const SECRET = 'tn-basic-9f3a7c1e55';
  const [pieceA, pieceB] = [SECRET.slice(0, 9), SECRET.slice(9)];
  const pair = Buffer.from(`alice:${SECRET}`).toString('base64');
  const dir = workDir();
  const out = path.join(dir, 'out');
  const store = path.join(dir, 'store');
  const trace = path.join(dir, 'trace.jsonl');
  fs.mkdirSync(out);
  const file = program(dir, `${DECODER}
let fs = use "std/fs";
let net = use "std/net";
let r = net.get_json(grant identity::basic("alice:jira"), "http://127.0.0.1:PORT/reflect");
let h = r["headers"]["authorization"];
let plain = decode(call("str_slice", h, 6));
let pw = call("str_slice", plain, 6);
let half = call("floor", call("len", pw) / 2);
let a = call("str_slice", pw, 0, 9);
let b = call("str_slice", pw, 9);
call("echo", "piece " + a);
call("echo", "piece " + b);
remember("a", a);
remember("b", b);
context.append("the second piece is " + b);
fs.write(null, ${JSON.stringify(path.join(out, 'pieces.txt'))}, a + "|" + b);
suspend;
call("echo", "again " + recall("a") + " " + recall("b"));
return {"a": a, "b": b, "whole": pw};
`);
  const before = seen.length;
  const run = await turn(['run', file, '--store', store, '--trace-file', trace, '--allow-net', '127.0.0.1:*', '--allow-write', out], { TURN_SECRET_JIRA: SECRET });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(seen.slice(before)[0]?.authorization, `Basic ${pair}`, 'the server got the credential');
  const id = /suspended: (\S+)/.exec(run.stderr)?.[1];
  assert.ok(id, `the run suspended: ${run.stderr}`);
  const inspectJson = await turn(['inspect', id, '--store', store, '--json']);
  const inspectText = await turn(['inspect', id, '--store', store]);
  assert.equal(inspectJson.code, 0, inspectJson.stderr);
  // the resume runs without the secret: it has nothing to redact with
  const resumed = await turn(['resume', id, '--store', store, '--json']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assertNowhere(
    {
      'the run\'s output': run.stdout + run.stderr,
      'the trace': fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '',
      'the written file': bytesUnder(out),
      'the store': bytesUnder(store),
      'turn inspect': inspectJson.stdout + inspectJson.stderr + inspectText.stdout + inspectText.stderr,
      'turn resume --json': resumed.stdout + resumed.stderr,
    },
    { 'the secret': SECRET, 'its first piece': pieceA, 'its second piece': pieceB, 'the base64 user:secret pair': pair, 'the secret in base64': Buffer.from(SECRET).toString('base64').slice(0, 20) },
  );
});

for (const [label, keyEnv, spec] of [
  ['api_key_env=TURN_SECRET_MODELKEY', 'TURN_SECRET_MODELKEY', 'openai:m?base_url=http://127.0.0.1:PORT/PATH/v1&api_key_env=TURN_SECRET_MODELKEY'],
  ['api_key_env=MY_MODEL_KEY', 'MY_MODEL_KEY', 'openai:m?base_url=http://127.0.0.1:PORT/PATH/v1&api_key_env=MY_MODEL_KEY'],
  ['OPENAI_API_KEY', 'OPENAI_API_KEY', 'openai:m?base_url=http://127.0.0.1:PORT/PATH/v1'],
  ['ANTHROPIC_API_KEY', 'ANTHROPIC_API_KEY', 'anthropic:m?base_url=http://127.0.0.1:PORT/PATH'],
] as const) {
  test(`a model key (${label}) an echoing model or a 401 message repeats is redacted from output, errors, the trace and the store`, async () => {
    const KEY = `sk-tn-${label.length}-4b1d9e0c7a2f`;
    const dir = workDir();
    const file = program(dir, 'let v = infer Str { "Say something."; };\ncall("echo", v);\nreturn v;\n');
    const places: Record<string, string> = {};
    const paths = label === 'ANTHROPIC_API_KEY' ? ['deny'] : ['echo', 'deny'];
    for (const where of paths) {
      const store = path.join(dir, `store-${where}`);
      const trace = path.join(dir, `trace-${where}.jsonl`);
      const model = spec.replace('PORT', String(port)).replace('PATH', where);
      const r = await turn(['run', file, '--model', model, '--json', '--trace-file', trace, '--store', store], { [keyEnv]: KEY });
      if (where === 'echo') {
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /my key is «redacted:/, 'the reply reaches the program, redacted');
      } else {
        assert.equal(r.code, 1, r.stdout + r.stderr);
        assert.match(r.stderr, /Incorrect API key provided: «redacted:/, 'the error says what the server said, redacted');
      }
      places[`${where}: output`] = r.stdout + r.stderr;
      places[`${where}: the trace`] = fs.readFileSync(trace, 'utf8');
      places[`${where}: the store`] = bytesUnder(store);
    }
    assertNowhere(places, { 'the key': KEY, 'half the key': KEY.slice(KEY.length - 12) });
  });
}

test('secrets holding ", \\, space, + and / are redacted however a server encodes them: JSON escapes, \\/, \\u0022, URL-encoding', async () => {
  const SECRET = 'q"u\\o t+e/d-tn41';
  const dir = workDir();
  const file = program(dir, `
let net = use "std/net";
call("echo", net.get(grant identity::bearer("sp"), "http://127.0.0.1:PORT/all")["body"]);
call("echo", net.get(grant identity::query("api_key:sp"), "http://127.0.0.1:PORT/all")["body"]);
call("echo", net.get(grant identity::header("x-token:sp"), "http://127.0.0.1:PORT/all?echo=1")["body"]);
`);
  const trace = path.join(dir, 'trace.jsonl');
  const r = await turn(['run', file, '--allow-net', '127.0.0.1:*', '--trace-file', trace], { TURN_SECRET_SP: SECRET });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /«redacted:sp»/);
  const json = JSON.stringify(SECRET).slice(1, -1);
  assertNowhere(
    { 'the output': r.stdout + r.stderr, 'the trace': fs.readFileSync(trace, 'utf8') },
    {
      'the secret': SECRET,
      'the secret JSON-escaped': json,
      'the secret JSON-escaped with \\/': json.replace(/\//g, '\\/'),
      'the secret with \\u escapes': '\\u0022u\\u005co',
      'the secret URL-encoded': encodeURIComponent(SECRET),
      'the secret form-encoded': new URLSearchParams({ k: SECRET }).toString().slice(2),
      'the secret\'s tail': 't+e/d-tn41',
      'the secret\'s tail URL-encoded': 't%2Be%2Fd-tn41',
    },
  );
});

test('with --allow-read over /proc and over the secrets file\'s folder, the secrets are not readable before (or after) their first use', async () => {
  const SECRET = 'tn-env-secret-6d2e81f0';
  const FILE_SECRET = 'tn-file-secret-3a9c55b7';
  // a variable no other process has, so that finding it in /proc/N/environ means finding this run's
  const PROBE = `TURN_SECRET_PROBE_${process.pid}`;
  const dir = workDir();
  const secrets = path.join(dir, 'secrets.env');
  fs.writeFileSync(secrets, `DEPLOY=${FILE_SECRET}\n`, { mode: 0o600 });
  fs.chmodSync(secrets, 0o600);
  fs.symlinkSync(secrets, path.join(dir, 'innocent.txt'));
  const file = program(dir, `
let fs = use "std/fs";
let tryread = turn(p: Str) -> Str {
    try { return fs.read(null, p); } catch (e) { return "DENIED " + e["message"]; }
};
call("echo", "self: " + tryread("/proc/self/environ"));
call("echo", "thread: " + tryread("/proc/thread-self/environ"));
call("echo", "root: " + tryread("/proc/1/root/proc/self/environ"));
call("echo", "file: " + tryread(${JSON.stringify(secrets)}));
call("echo", "link: " + tryread(${JSON.stringify(path.join(dir, 'innocent.txt'))}));
let found = 0;
let names = fs.list(null, "/proc");
let k = 0;
while k < call("len", names) {
    let n = names[k];
    if call("to_number", n) != null {
        let text = tryread("/proc/" + n + "/environ");
        if call("str_contains", text, "${PROBE}") {
            call("echo", "pid " + n + ": " + text);
            let found = found + 1;
        }
    }
    let k = k + 1;
}
call("echo", "found " + found);
`);
  const r = await turn(['run', file, '--allow-read', '/proc', '--allow-read', '/dev', '--allow-read', dir, '--secrets', secrets], { [PROBE]: SECRET });
  assert.equal(r.code, 0, r.stderr);
  assertNowhere({ 'the output': r.stdout + r.stderr }, { 'the environment\'s secret': SECRET, 'the file\'s secret': FILE_SECRET });
  assert.match(r.stdout, /^self: DENIED .*/m);
  assert.match(r.stdout, /^file: DENIED .*/m);
  assert.match(r.stdout, /^link: DENIED .*/m);
  assert.match(r.stdout, /^found 0$/m);
});
