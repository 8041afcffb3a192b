// Wasm provider drivers (`wasm:PATH`, `TURN_LLM_PROVIDER`): a driver written in WebAssembly text
// (fixtures/wasm/openai.wat, built to openai.wasm by scripts/build-wasm-fixtures.sh) against a
// fake OpenAI-compatible server on 127.0.0.1, the host's authority over its requests (network
// capability, allowed secrets), and one malformed driver per way a driver can go wrong: each must
// end in a clear error naming the driver file, never a crash or a hang.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createModel, llmProviderSpec, ModelInputError, resolveModelSpec, UnknownModelError, type ModelAccess } from '../../runtime/run/model.js';
import { wireSchema } from '../../runtime/infer/prompt.js';
import { chatTurns } from '../../runtime/providers/index.js';
import { MemoryVault } from '../../runtime/effects/vault.js';
import { okJson, runWith, type Ran } from '../infer/helpers.js';
import { fakeServer, openaiCompletion, openaiError, type FakeServer, type Scripted } from './fake-server.js';

const ROOT = path.join(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'test/providers/fixtures/wasm');
const fixture = (name: string) => path.join(FIXTURES, `${name}.wasm`);

const SECRET = 'sk-wasm-secret-8d41e7';
const NET: ModelAccess = { capabilities: { network: { hosts: ['127.0.0.1:*'] } } };

const PROGRAM = `
struct Verdict { approved: Bool, note: Str };
context.system("You review changes.");
context.append("diff: adds a cache");
let v = infer Verdict { "Should we approve?"; };
return [v, confidence v];
`;
const CATCHING = `
struct Verdict { approved: Bool, note: Str };
try { return infer Verdict { "Should we approve?"; }; } catch (e) { return e; }
`;
const GOOD = { approved: true, note: 'a "quoted" note \\ with é' };

const servers: FakeServer[] = [];
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const c of closers) await c();
});

async function serve(answers: Scripted[] | ((req: FakeServer['received'][number], n: number) => Scripted)): Promise<FakeServer> {
  const s = await fakeServer(answers);
  servers.push(s);
  return s;
}

/** The spec of the OpenAI driver fixture with both its secrets allowed. */
const openaiSpec = (opts = '') => `wasm:${fixture('openai')}?secret=OPENAI_BASE_URL,OPENAI_API_KEY&retries=0${opts}`;
const envFor = (s: FakeServer, extra: Record<string, string> = {}) => ({ OPENAI_BASE_URL: `${s.url}/v1`, OPENAI_API_KEY: SECRET, ...extra });

async function run(spec: string, env: Record<string, string | undefined>, access: ModelAccess = NET, source = PROGRAM): Promise<Ran & { ms: number }> {
  const model = createModel(spec, env, access);
  const t0 = performance.now();
  const r = await runWith(source, (req, io) => model.infer(req, io));
  return { ...r, ms: performance.now() - t0 };
}

/** The InferError a catching program returned. */
async function failed(spec: string, env: Record<string, string | undefined> = {}, access: ModelAccess = NET): Promise<Record<string, unknown> & { message: string; ms: number }> {
  const r = await run(spec, env, access, CATCHING);
  const e = okJson(r) as Record<string, unknown>;
  assert.equal(e.type, 'InferError', JSON.stringify(e));
  assert.equal(e.reason, 'provider');
  return { ...e, message: String(e.message), ms: r.ms };
}

test('openai.wasm: the run infers through the driver, the host makes the HTTP call, the reply binds', async () => {
  const content = JSON.stringify({ value: GOOD, confidence: 0.7 });
  const s = await serve([{ status: 200, body: openaiCompletion(content) }]);
  const r = await run(openaiSpec(), envFor(s));
  assert.deepEqual(okJson(r), [GOOD, 0.7]);

  assert.equal(s.received.length, 1);
  const got = s.received[0];
  assert.equal(got.method, 'POST');
  assert.equal(got.url, '/v1/chat/completions');
  assert.equal(got.headers.authorization, `Bearer ${SECRET}`, 'the $env: template filled from the allowed secret');
  assert.equal(got.headers['content-type'], 'application/json');
  const body = got.json as { model: string; messages: unknown[]; response_format: { type: string; json_schema: { name: string; schema: unknown } } };
  assert.equal(body.model, 'gpt-4o-mini');
  // the driver copied the host's chat turns and the reply schema into the request
  const { system, turns } = chatTurns(r.requests[0]);
  assert.deepEqual(body.messages, [{ role: 'system', content: system }, ...turns]);
  assert.equal(system, 'You review changes.');
  assert.equal(body.response_format.type, 'json_schema');
  assert.deepEqual(body.response_format.json_schema.schema, JSON.parse(JSON.stringify(wireSchema(r.requests[0].schema))));

  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.equal(reply.raw, content);
  assert.equal((reply.meta as { status: number }).status, 200);
  assert.match(String((reply.meta as { driver: string }).driver), /openai\.wasm$/);
  // the key is in no event
  assert.ok(!JSON.stringify(r.events).includes(SECRET));
});

test('openai.wasm: an invalid reply is re-asked through the driver with the errors', async () => {
  const s = await serve([
    { status: 200, body: openaiCompletion(JSON.stringify({ value: { approved: 'yes', note: 'x' }, confidence: 0.9 })) },
    { status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.6 })) },
  ]);
  const r = await run(openaiSpec(), envFor(s));
  assert.deepEqual(okJson(r), [GOOD, 0.6]);
  assert.equal(s.received.length, 2);
  const second = s.received[1].json as { messages: { role: string; content: string }[] };
  assert.equal(second.messages.at(-2)?.role, 'assistant');
  assert.match(second.messages.at(-1)!.content, /\/value\/approved: must be a boolean/);
});

test('openai.wasm: a non-retryable HTTP error goes to the driver, whose error fails the model call', async () => {
  const s = await serve([{ status: 400, body: openaiError(400, 'messages: too long', 'invalid_request_error') }]);
  const e = await failed(openaiSpec(), envFor(s));
  assert.match(e.message, /^infer Verdict: the model call failed: Wasm driver .*openai\.wasm reported an error: HTTP 400: \{"error":\{"message":"messages: too long"/);
  assert.equal(e.status, 400);
});

test('openai.wasm: 503s are retried by the host transport, then the reply binds', async () => {
  const s = await serve([
    { status: 503, body: openaiError(503, 'overloaded') },
    { status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.5 })) },
  ]);
  const r = await run(`wasm:${fixture('openai')}?secret=OPENAI_BASE_URL,OPENAI_API_KEY&retries=1&backoff_ms=5`, envFor(s));
  assert.deepEqual(okJson(r), [GOOD, 0.5]);
  assert.equal(s.received.length, 2);
  assert.equal(r.events.filter((x) => x.kind === 'http.retry').length, 1);
});

test('network: a driver reaches only hosts the run grants', async () => {
  const s = await serve([{ status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD })) }]);
  const none = await failed(openaiSpec(), envFor(s), {});
  assert.match(none.message, /Wasm driver .*openai\.wasm: its request to \[secret OPENAI_BASE_URL\]\/chat\/completions is refused: network access to 127\.0\.0\.1:\d+ is not granted \(allowed: none\); grant the driver's host with --allow-net/);
  const other = await failed(openaiSpec(), envFor(s), { capabilities: { network: { hosts: ['api.openai.com'] } } });
  assert.match(other.message, /network access to 127\.0\.0\.1:\d+ is not granted \(allowed: api\.openai\.com\)/);
  // approval: denied without a hook, asked with one
  const ask = { capabilities: { network: { hosts: ['127.0.0.1:*'], approve: true } } };
  assert.match((await failed(openaiSpec(), envFor(s), ask)).message, /is refused: POST \[secret OPENAI_BASE_URL\]\/chat\/completions \(a model call of wasm:.*openai\.wasm\) was not approved/);
  assert.equal(s.received.length, 0, 'nothing was sent');
  const asked: string[] = [];
  const r = await run(openaiSpec(), envFor(s), { ...ask, approve: async (req) => (asked.push(req.summary), 'approve') });
  assert.deepEqual(okJson(r), [GOOD, 0.5]);
  assert.equal(asked.length, 1);
  assert.match(asked[0], /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(a model call of wasm:.*openai\.wasm\)$/, 'the person approving sees the host');
  assert.equal(s.received.length, 1);
});

test('secrets: $env: templates read only the names the spec allows', async () => {
  const s = await serve([]);
  // OPENAI_API_KEY is set in the environment but not allowed: the driver cannot have it
  const e = await failed(`wasm:${fixture('openai')}?secret=OPENAI_BASE_URL`, envFor(s));
  assert.match(e.message, /the header authorization uses \$env:OPENAI_API_KEY, which is not one of the driver's secrets \(OPENAI_BASE_URL\); allow it with wasm:.*openai\.wasm\?secret=OPENAI_BASE_URL,OPENAI_API_KEY/);
  // allowed but not set
  const unset = await failed(openaiSpec(), { OPENAI_BASE_URL: `${s.url}/v1` });
  assert.match(unset.message, /the header authorization uses \$env:OPENAI_API_KEY, which is not set \(set TURN_SECRET_OPENAI_API_KEY/);
  assert.equal(s.received.length, 0);
  assert.ok(!e.message.includes(SECRET));
});

test('body templates: a string value the driver wrote as one template is filled; the program\'s text never is', async () => {
  const content = JSON.stringify({ value: GOOD, confidence: 0.7 });
  const s = await serve(() => ({ status: 200, body: openaiCompletion(content) }));
  // the driver writes "model": "$env:OPENAI_MODEL:gpt-4o-mini", as Turn v1's drivers do: the
  // default when the variable is not allowed (set or not), the whole value when it is (Turn v1
  // would send gpt-4o-2024-08-06-4o-mini: its default ends at the first `-`)
  await run(openaiSpec(), envFor(s, { OPENAI_MODEL: 'gpt-4o-2024-08-06' }));
  assert.equal((s.received[0].json as { model: string }).model, 'gpt-4o-mini');
  await run(`wasm:${fixture('openai')}?secret=OPENAI_BASE_URL,OPENAI_API_KEY,OPENAI_MODEL&retries=0`, envFor(s, { OPENAI_MODEL: 'gpt-4o-2024-08-06' }));
  assert.equal((s.received[1].json as { model: string }).model, 'gpt-4o-2024-08-06');
  // a system text that is exactly a template is the program's, not the driver's: it stays text
  const yes = await serve([{ status: 200, body: openaiCompletion(JSON.stringify({ value: true, confidence: 0.9 })) }]);
  const sneaky = `context.system("$env:OPENAI_API_KEY");\nreturn infer Bool { "ok?"; };`;
  assert.equal(okJson(await run(openaiSpec(), envFor(yes), NET, sneaky)), true);
  const body = yes.received[0];
  assert.equal((body.json as { messages: { content: string }[] }).messages[0].content, '$env:OPENAI_API_KEY');
  assert.ok(!body.body.includes(SECRET), 'the key went out only in its header');
});

test('secrets: the vault (TURN_SECRET_<NAME>, or the run\'s vault) comes first; filled values never reach the driver or a message', async () => {
  // the server echoes the authorization header back as the model's text
  const s = await serve((req) => ({ status: 200, body: openaiCompletion(JSON.stringify({ value: { approved: true, note: `saw ${String(req.headers.authorization)}` } })) }));
  const fromEnvVault = await run(openaiSpec(), { OPENAI_BASE_URL: `${s.url}/v1`, TURN_SECRET_OPENAI_API_KEY: SECRET, OPENAI_API_KEY: 'not-this-one' });
  assert.equal(s.received[0].headers.authorization, `Bearer ${SECRET}`);
  const [v] = okJson(fromEnvVault) as [{ note: string }];
  assert.equal(v.note, 'saw Bearer [secret OPENAI_API_KEY]', 'the echoed key was removed before the driver saw the body');

  const vault = new MemoryVault({ OPENAI_API_KEY: 'sk-from-the-editor-vault' });
  await run(openaiSpec(), { OPENAI_BASE_URL: `${s.url}/v1` }, { ...NET, vault });
  assert.equal(s.received[1].headers.authorization, 'Bearer sk-from-the-editor-vault');

  const echo401 = await serve((req) => ({ status: 401, body: openaiError(401, `Incorrect API key provided: ${String(req.headers.authorization)}`) }));
  const e = await failed(openaiSpec(), envFor(echo401));
  assert.match(e.message, /HTTP 401: .*Incorrect API key provided: Bearer \[secret OPENAI_API_KEY\]/);
  assert.ok(!e.message.includes(SECRET));
});

test('tool-call.wasm: a tool call from a driver is a failed model call (tool calls are not supported)', async () => {
  const s = await serve([{ status: 200, body: openaiCompletion('{}') }]);
  const e = await failed(`wasm:${fixture('tool-call')}?secret=OPENAI_BASE_URL`, envFor(s));
  assert.match(e.message, /Wasm driver .*tool-call\.wasm answered with a tool call \(web_search\); tool calls from drivers are not supported/);
  assert.equal(s.received.length, 1);
});

// ---- malformed drivers refused when the model is created (exit 2 from `turn run`)

function refused(spec: string): string {
  try {
    createModel(spec, {}, NET);
  } catch (e) {
    assert.ok(e instanceof ModelInputError, `a ModelInputError, got ${String(e)}`);
    return e.message;
  }
  assert.fail(`${spec} was accepted`);
}

test('malformed drivers are refused at load, naming the file', () => {
  assert.match(refused(`wasm:${fixture('missing-export')}`), /^Wasm driver .*missing-export\.wasm: it does not export transform_response \(function\); a driver exports memory, alloc, transform_request and transform_response$/);
  assert.match(refused(`wasm:${fixture('imports')}`), /^Wasm driver .*imports\.wasm: it imports env\.fetch \(function\); a driver gets no imports, so it can do no I\/O/);
  assert.match(refused(`wasm:${fixture('big-memory')}`), /^Wasm driver .*big-memory\.wasm: it asks for 125 MiB of memory from the start, more than the 64 MiB a driver may use$/);
  assert.match(refused(`wasm:${fixture('wrong-type')}`), /^Wasm driver .*wrong-type\.wasm: transform_request has the type \(i32, i32\) -> i32, but a driver's transform_request is \(i32, i32\) -> i64$/);
  assert.match(refused(`wasm:${path.join(FIXTURES, 'trap.wat')}`), /^Wasm driver .*trap\.wat: not a WebAssembly module \(no \\0asm header/);
  assert.match(refused(`wasm:${path.join(FIXTURES, 'nothing-here.wasm')}`), /^cannot read the Wasm driver .*nothing-here\.wasm: ENOENT/);
  assert.match(refused(`wasm:${FIXTURES}`), /^cannot read the Wasm driver .*: it is a directory$/);
  assert.match(refused(`wasm:${fixture('openai')}?secret=not-a-name`), /secret needs environment-variable names/);
  assert.match(refused(`wasm:${fixture('openai')}?base_url=x`), /unknown option `base_url` \(options: secret, call_timeout_ms, connect_timeout_ms, first_byte_timeout_ms, idle_timeout_ms, timeout_ms, max_reply_bytes, max_frame_bytes, retries, backoff_ms, max_wait_ms, concurrency\)/);
  assert.match(refused('wasm:'), /`wasm:PATH` needs the path of a driver module/);
});

// ---- malformed drivers failing a call: a catchable InferError, the process unharmed

test('a trap in transform_request', async () => {
  const e = await failed(`wasm:${fixture('trap')}`);
  assert.match(e.message, /^infer Verdict: the model call failed: Wasm driver .*trap\.wasm: trapped in transform_request: unreachable$/);
});

test('a returned pointer out of bounds', async () => {
  const e = await failed(`wasm:${fixture('oob-pointer')}`);
  assert.match(e.message, /Wasm driver .*oob-pointer\.wasm: transform_request returned 16 bytes at the pointer 0xffffff00, outside its 65536 bytes of memory$/);
});

test('a huge returned length', async () => {
  const e = await failed(`wasm:${fixture('huge-length')}`);
  assert.match(e.message, /Wasm driver .*huge-length\.wasm: transform_request returned a length of 4294967295 bytes, more than the 16 MiB a driver may return$/);
});

test('output that is not JSON', async () => {
  const e = await failed(`wasm:${fixture('not-json')}`);
  assert.match(e.message, /Wasm driver .*not-json\.wasm: transform_request returned text that is not JSON \(.*\): "this is not JSON"$/);
});

test('an infinite loop is stopped by the time limit, and the driver can be called again', async () => {
  const spec = `wasm:${fixture('loop')}?call_timeout_ms=300`;
  const model = createModel(spec, {}, NET);
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const r = await runWith(CATCHING, (req, io) => model.infer(req, io));
    const ms = performance.now() - t0;
    const e = okJson(r) as { message: string };
    assert.match(e.message, /Wasm driver .*loop\.wasm: did not finish transform_request within 300 ms, so it was stopped \(a driver must return; raise the limit with call_timeout_ms\)/);
    assert.ok(ms < 5000, `bounded (${Math.round(ms)} ms)`);
  }
  // the process and other drivers are unharmed
  const s = await serve([{ status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.5 })) }]);
  assert.deepEqual(okJson(await run(openaiSpec(), envFor(s))), [GOOD, 0.5]);
});

test('memory growth past the cap fails inside the engine (64 MiB)', async () => {
  const e = await failed(`wasm:${fixture('grow')}?call_timeout_ms=10000`);
  assert.match(e.message, /Wasm driver .*grow\.wasm: trapped in transform_request: unreachable \(its memory had grown to 63\.1 MiB of the 64 MiB cap; memory\.grow past the cap fails\)$/);
});

test('concurrent infers through one driver are each answered', async () => {
  const s = await serve((req) => {
    const messages = (req.json as { messages: { content: string }[] }).messages;
    const n = /item (\d+)/.exec(messages.at(-1)!.content)![1];
    return { status: 200, body: openaiCompletion(JSON.stringify({ value: Number(n) * 10, confidence: 0.5 })) };
  });
  const source = `
let ask = turn(i: Num) -> Num { return infer Num { "item " + i; }; };
return gather spawn_each([1, 2, 3, 4], ask);
`;
  const r = await run(openaiSpec(), envFor(s), NET, source);
  assert.deepEqual(okJson(r), [10, 20, 30, 40]);
});

test('a driver\'s worker thread never keeps the process alive', () => {
  // a process that used a driver (and had one stopped by the time limit) ends on its own
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-wasm-exit-'));
  try {
    const script = path.join(dir, 'main.ts');
    fs.writeFileSync(
      script,
      `import { createModel } from ${JSON.stringify(path.join(ROOT, 'runtime/run/model.ts'))};
import { runWith } from ${JSON.stringify(path.join(ROOT, 'test/infer/helpers.ts'))};
const trap = createModel(${JSON.stringify(`wasm:${fixture('trap')}`)});
const loop = createModel(${JSON.stringify(`wasm:${fixture('loop')}?call_timeout_ms=200`)});
const src = 'struct V { ok: Bool }; try { return infer V { "x"; }; } catch (e) { return e["message"]; }';
void (async () => {
  for (const m of [trap, loop]) {
    const r = await runWith(src, (req, io) => m.infer(req, io));
    console.log(r.outcome.ok ? r.outcome.json : 'failed');
  }
})();
`,
    );
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.signal, null, `the process did not end by itself (${r.stderr})`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /trapped in transform_request: unreachable\n.*did not finish transform_request within 200 ms/);
    assert.ok(performance.now() - t0 < 30_000);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---- TURN_LLM_PROVIDER: Turn v1's lookup in .turn_modules/

test('TURN_LLM_PROVIDER names .turn_modules/NAME.wasm (or NAME_provider.wasm) when no model is given', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-wasm-'));
  closers.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, '.turn_modules'));
  fs.copyFileSync(fixture('openai'), path.join(dir, '.turn_modules', 'openai.wasm'));
  fs.copyFileSync(fixture('openai'), path.join(dir, '.turn_modules', 'grok_provider.wasm'));
  const mods = path.join(dir, '.turn_modules');

  assert.equal(resolveModelSpec(undefined, { TURN_LLM_PROVIDER: 'openai' }, dir), `wasm:${path.join(mods, 'openai.wasm')}`);
  assert.equal(resolveModelSpec(undefined, { TURN_LLM_PROVIDER: 'grok?secret=XAI_API_KEY' }, dir), `wasm:${path.join(mods, 'grok_provider.wasm')}?secret=XAI_API_KEY`);
  assert.equal(resolveModelSpec(undefined, { TURN_LLM_PROVIDER: 'mock' }, dir), 'mock');
  // --model and TURN_MODEL come first; nothing set: the mock model
  assert.equal(resolveModelSpec('script:x.json', { TURN_LLM_PROVIDER: 'openai' }, dir), 'script:x.json');
  assert.equal(resolveModelSpec(undefined, { TURN_MODEL: 'mock', TURN_LLM_PROVIDER: 'openai' }, dir), 'mock');
  assert.equal(resolveModelSpec(undefined, {}, dir), 'mock');
  assert.throws(() => llmProviderSpec('anthropic', dir), (e: Error) => e instanceof UnknownModelError && /TURN_LLM_PROVIDER=anthropic: no driver \.turn_modules\/anthropic\.wasm \(nor Turn v1's \.turn_modules\/anthropic_provider\.wasm\) in /.test(e.message));
  assert.throws(() => llmProviderSpec('../../etc/x', dir), /TURN_LLM_PROVIDER must name a driver in \.turn_modules\//);

  // the spec it gives runs
  const s = await serve([{ status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.5 })) }]);
  const spec = resolveModelSpec(undefined, { TURN_LLM_PROVIDER: 'openai?secret=OPENAI_BASE_URL,OPENAI_API_KEY' }, dir);
  assert.deepEqual(okJson(await run(spec, envFor(s))), [GOOD, 0.5]);
});

// ---- the committed .wasm files are what their .wat sources build to

test('the committed driver fixtures match their .wat sources', (t) => {
  const which = spawnSync('wat2wasm', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) {
    t.skip('wat2wasm is not installed (Debian: apt-get install wabt): the committed .wasm files are used as they are');
    return;
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-wasm-build-'));
  try {
    const built = spawnSync('bash', [path.join(ROOT, 'scripts/build-wasm-fixtures.sh'), out], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const sources = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.wat'));
    assert.ok(sources.length >= 10);
    for (const wat of sources) {
      const name = wat.replace(/\.wat$/, '.wasm');
      assert.ok(fs.existsSync(path.join(FIXTURES, name)), `${name} is committed`);
      assert.ok(
        Buffer.compare(fs.readFileSync(path.join(out, name)), fs.readFileSync(path.join(FIXTURES, name))) === 0,
        `${name} differs from what ${wat} builds to: run scripts/build-wasm-fixtures.sh (wat2wasm ${which.stdout.trim()})`,
      );
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
