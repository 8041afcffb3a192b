// A Turn program uses real MCP servers someone else wrote (the MCP project's reference servers,
// from npm) end to end through the built `turn` command: absorbed tools with typed arguments, a
// structured reply validated against its output schema, an image block, progress notifications in
// the trace, the launch grant, the server's environment, Streamable HTTP, and a filesystem server
// confined to a temporary folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JS_STACK, turnAsync } from '../cli/run-cli.js';
import { EVERYTHING, FILESYSTEM, NODE, everythingOverHttp, launchMap, type HttpServer } from './servers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-client-'));
const env = { TURN_SCHEMA_DIR: path.join(dir, '.schemas'), TURN_SECRET_PAYMENTS: 'sk-never-shown-4711' };
const everything = launchMap([EVERYTHING, 'stdio']);

function program(name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  return file;
}

const run = (file: string, flags: string[] = []) => turnAsync(['run', file, ...flags], { cwd: dir, env });

test('server-everything over stdio: typed tools, a validated structured reply, an image, progress in the trace', async () => {
  const file = program('everything.tn', `
let everything = use schema::mcp(${everything});
let sum = everything.get_sum(null, 2, 40);
call("echo", sum.text);
let weather = everything.get_structured_content(null, "Chicago");
let t: Num = weather.temperature;
call("echo", weather.conditions);
let image = everything.get_tiny_image(null);
let blocks = image.content;
let pictures = filter(blocks, turn(b: Map) -> Bool { return b["type"] == "image"; });
call("echo", pictures[0]["mimeType"]);
call("echo", "images: " + call("len", pictures));
let done = everything.trigger_long_running_operation(null, 1, 2);
call("echo", done.text);
`);
  const trace = path.join(dir, 'everything.trace');
  const r = await run(file, ['--allow-run', NODE, '--trace-file', trace]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean);
  assert.equal(lines[0], 'The sum of 2 and 40 is 42.');
  assert.ok(lines[1].length > 0, 'the structured reply has its conditions');
  assert.equal(lines[2], 'image/png');
  assert.equal(lines[3], 'images: 1');
  assert.match(lines[4], /Long running operation completed/);
  const events = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const progress = events.filter((e) => e.kind === 'mcp.progress');
  assert.deepEqual(progress.map((e) => [e.tool, e.progress, e.total]), [['trigger-long-running-operation', 1, 2], ['trigger-long-running-operation', 2, 2]]);
  const started = events.filter((e) => e.kind === 'mcp.server' && e.state === 'started');
  assert.equal(started.length, 1, 'one server process for the whole run');
  assert.equal(typeof started[0].processId, 'number');
});

test('absorbed argument and result types are checked at compile time', async () => {
  const file = program('typed.tn', `
let everything = use schema::mcp(${everything});
let sum = everything.get_sum(null, "two", 40);
let weather = everything.get_structured_content(null, "Chicago");
let t: Str = weather.temperature;
`);
  // listed once (the run above may have cached it; --allow-run lists it when not)
  const r = await turnAsync(['check', file, '--allow-run', NODE], { cwd: dir, env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /typed\.tn:3:\d+: type mismatch: parameter `a` of `get_sum` is Num, got Str/);
  assert.match(r.stderr, /typed\.tn:5:\d+: .*Str.*Num|typed\.tn:5:\d+: .*Num.*Str/);
});

test('a stdio server is launched only under --allow-run, with an environment holding only what the launch map names', async () => {
  const file = program('env.tn', `
let everything = use schema::mcp(${JSON.stringify({ command: NODE, args: [EVERYTHING, 'stdio'], env: { GREETING: 'hi' }, pass_env: ['TURN_TEST_PASSED'] })});
let e = everything.get_env(null);
call("echo", e.text);
`);
  // without the grant, compiling cannot list it, and running cannot launch it
  const denied = await run(file);
  assert.equal(denied.code, 2);
  assert.match(denied.stderr, /env\.tn:2:\d+: .*is not cached: list its tools with --allow-run/);
  // listing it passes pass_env names too: only those --allow-env grants
  const listed = await turnAsync(['check', file, '--allow-run', NODE, '--allow-env', 'TURN_TEST_PASSED'], { cwd: dir, env });
  assert.equal(listed.code, 0, listed.stderr);
  const refused = await run(file);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /EffectError.*cannot start the MCP server .*launching .* is not granted/);
  assert.doesNotMatch(refused.stderr, JS_STACK);
  // pass_env needs --allow-env
  const noEnv = await run(file, ['--allow-run', NODE]);
  assert.equal(noEnv.code, 1);
  assert.match(noEnv.stderr, /cannot pass TURN_TEST_PASSED to the MCP server/);
  const ok = await turnAsync(['run', file, '--allow-run', NODE, '--allow-env', 'TURN_TEST_PASSED'], { cwd: dir, env: { ...env, TURN_TEST_PASSED: 'yes' } });
  assert.equal(ok.code, 0, ok.stderr);
  const seen = JSON.parse(ok.stdout.trim()) as Record<string, string>;
  assert.equal(seen.GREETING, 'hi');
  assert.equal(seen.TURN_TEST_PASSED, 'yes');
  assert.equal(seen.PATH, undefined, 'not even PATH is passed on unless named');
  assert.equal(seen.TURN_SECRET_PAYMENTS, undefined);
  assert.doesNotMatch(ok.stdout, /sk-never-shown/);
});

test('a reply that does not match the output schema is an error before it binds', async () => {
  // a saved tools/list whose output schema for get-structured-content says temperature is a Str
  const tools = {
    tools: [
      {
        name: 'get-structured-content',
        inputSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        outputSchema: { type: 'object', properties: { temperature: { type: 'string' } }, required: ['temperature'] },
      },
    ],
  };
  fs.writeFileSync(path.join(dir, 'wrong-tools.json'), JSON.stringify(tools));
  const file = program('wrong.tn', `
let saved = use schema::mcp("wrong-tools.json");
let server = saved.client(${everything});
let w = server.get_structured_content(null, "Chicago");
call("echo", "bound: " + w.temperature);
`);
  const r = await run(file, ['--allow-run', NODE]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /the reply of the MCP tool get-structured-content does not match its output schema: \/temperature must be string/);
  assert.doesNotMatch(r.stdout, /bound:/);
});

test('server-filesystem over stdio, confined to a temporary folder: writes, reads, and a refused path is a catchable tool error', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-fs-'));
  const outside = path.join(dir, 'outside.txt');
  fs.writeFileSync(outside, 'not yours');
  const file = program('files.tn', `
let files = use schema::mcp(${launchMap([FILESYSTEM, fs.realpathSync(root)])});
files.write_file(null, ${JSON.stringify(path.join(fs.realpathSync(root), 'note.txt'))}, "from Turn");
let back = files.read_text_file(null, ${JSON.stringify(path.join(fs.realpathSync(root), 'note.txt'))}, null, null);
call("echo", back.content);
try {
    files.read_text_file(null, ${JSON.stringify(outside)}, null, null);
    call("echo", "read outside");
} catch (e) {
    call("echo", "refused: " + e["message"]);
}
`);
  const r = await run(file, ['--allow-run', NODE]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean);
  assert.equal(lines[0], 'from Turn');
  assert.match(lines[1], /^refused: .*read_text_file failed: .*(denied|outside)/i);
  assert.equal(fs.readFileSync(path.join(root, 'note.txt'), 'utf8'), 'from Turn');
});

let http: HttpServer | undefined;
before(async () => {
  http = await everythingOverHttp();
});
after(async () => {
  await http?.stop();
});

test('server-everything over Streamable HTTP: absorbed from its URL, called under --allow-net (and refused without it)', async () => {
  const url = http!.url;
  const file = program('http.tn', `
let everything = use schema::mcp(${JSON.stringify(url)});
let e = everything.echo(null, "over SSE");
call("echo", e.text);
let w = everything.get_structured_content(null, "New York");
call("echo", "humidity is a " + call("type_of", w.humidity));
let done = everything.trigger_long_running_operation(null, 1, 2);
call("echo", done.text);
`);
  const trace = path.join(dir, 'http.trace');
  const r = await run(file, ['--allow-net', `127.0.0.1:${http!.port}`, '--trace-file', trace]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.split('\n').filter(Boolean).slice(0, 2), ['Echo: over SSE', 'humidity is a Num']);
  const events = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(events.filter((e) => e.kind === 'mcp.progress').length, 2);
  const refused = await run(file);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /cannot reach the MCP server .*network access to 127\.0\.0\.1:\d+ is not granted/);
});
