// Every tool, resource, resource template and prompt of the MCP project's reference servers
// (server-everything over stdio and Streamable HTTP; server-filesystem and server-memory, which
// are stdio only), used from a Turn program through the run API. List-driven: the program lists
// what each server offers, and the test fails when one is not exercised by its table below.
// server-everything's elicitation requests are answered by the run API's programmatic answerer,
// its sampling requests by the mock model, its task-based tool runs as a polled task, and its
// roots tool sees the run's read grant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRun, type RunEvent } from '../../runtime/index.js';
import type { ElicitationAnswer, ElicitationQuestion } from '../../runtime/mcp/elicitation.js';
import { EVERYTHING, FILESYSTEM, NODE, everythingOverHttp, launchMap, type HttpServer } from './servers.js';

const MEMORY = path.join(path.dirname(FILESYSTEM), '..', '..', 'server-memory', 'dist', 'index.js');
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-real-')));
const granted = path.join(dir, 'granted');
fs.mkdirSync(granted);

type Call = { tool: string; args: Record<string, unknown>; options?: Record<string, unknown> };

const lit = (v: unknown) => JSON.stringify(v);

/**
 * A Turn program that lists the server's tools, resources, templates and prompts (one `listed`
 * line each), reads every resource, then makes `calls`, reads `templates` and gets `prompts`
 * (one `called`/`read`/`prompt` line each, with the reply's text as JSON).
 */
function program(server: string, calls: Call[], templates: string[], prompts: [string, Record<string, string>][], more = ''): string {
  const lines = [
    `let S = ${server};`,
    'let list = turn(what: Str, items: List) -> Num { let i = 0; while i < call("len", items) { let it = items[i]; let n = it["name"]; if it["uriTemplate"] != null { let n = it["uriTemplate"]; } call("echo", "listed " + what + " " + n); let i = i + 1; } return i; };',
    'list("tool", call("mcp_tools", null, S));',
    'let caps = call("mcp_tools", null, S);',
  ];
  lines.push(
    'try { let resources = call("mcp_resources", null, S); list("resource", resources); let i = 0; while i < call("len", resources) { let c = call("mcp_read", null, S, resources[i]["uri"]); call("echo", "readres " + resources[i]["name"] + " " + call("len", c)); let i = i + 1; } } catch (e) { call("echo", "no resources: " + e["message"]); }',
    'try { list("template", call("mcp_templates", null, S)); } catch (e) { call("echo", "no templates: " + e["message"]); }',
    'try { list("prompt", call("mcp_prompts", null, S)); } catch (e) { call("echo", "no prompts: " + e["message"]); }',
  );
  for (const c of calls) {
    lines.push(`if true { let r = call("mcp_call", null, S, ${lit(c.tool)}, ${lit(c.args)}, ${lit(c.options ?? {})}); call("echo", "called " + ${lit(c.tool)} + " " + call("json_stringify", r["text"])); }`);
  }
  for (const t of templates) lines.push(`if true { let c = call("mcp_read", null, S, ${lit(t)}); call("echo", "template " + ${lit(t)} + " " + call("json_stringify", c[0])); }`);
  for (const [name, args] of prompts) lines.push(`if true { let p = call("mcp_prompt", null, S, ${lit(name)}, ${lit(args)}); call("echo", "prompt " + ${lit(name)} + " " + call("len", p["messages"]) + " " + call("json_stringify", p["text"])); }`);
  return lines.join('\n') + '\n' + more;
}

interface Ran {
  lines: string[];
  events: RunEvent[];
  questions: ElicitationQuestion[];
  listed: (what: string) => string[];
  called: (tool: string) => string;
}

async function runProgram(name: string, source: string, o: { allowRun?: boolean; allowNet?: string; answer?: (q: ElicitationQuestion) => ElicitationAnswer } = {}): Promise<Ran> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  const lines: string[] = [];
  const events: RunEvent[] = [];
  const questions: ElicitationQuestion[] = [];
  const run = await startRun({
    file,
    cwd: dir,
    model: 'mock',
    fetchSchemas: false,
    toolTimeoutMs: 60_000,
    askOnTerminal: false,
    authority: { allowRead: [granted], ...(o.allowRun ? { allowRun: [NODE] } : {}), ...(o.allowNet ? { allowNet: [o.allowNet] } : {}) },
    elicit: async (q) => {
      questions.push(q);
      return o.answer?.(q);
    },
    onOutput: (l) => lines.push(l),
    onEvent: (e) => events.push(e),
  });
  const result = await run.start();
  assert.equal(result.kind, 'done', `${name}: ${JSON.stringify(result).slice(0, 2000)}\n${lines.join('\n')}`);
  const listed = (what: string) => lines.filter((l) => l.startsWith(`listed ${what} `)).map((l) => l.slice(`listed ${what} `.length));
  const called = (tool: string) => {
    const line = lines.find((l) => l.startsWith(`called ${tool} `));
    assert.ok(line !== undefined, `${tool} was not called:\n${lines.join('\n')}`);
    return JSON.parse(line.slice(`called ${tool} `.length)) as string;
  };
  return { lines, events, questions, listed, called };
}

/** Every name the server lists is one the table exercises (and the other way round). */
function allExercised(listed: string[], exercised: string[], what: string): void {
  assert.ok(listed.length > 0, `the server lists no ${what}`);
  assert.deepEqual([...listed].sort(), [...new Set(exercised)].sort(), `the ${what}s listed and the ${what}s exercised differ`);
}

// ---- server-everything

const EVERYTHING_CALLS: Call[] = [
  { tool: 'echo', args: { message: 'from Turn' } },
  { tool: 'get-annotated-message', args: { messageType: 'success', includeImage: true } },
  { tool: 'get-env', args: {} },
  { tool: 'get-resource-links', args: { count: 2 } },
  { tool: 'get-resource-reference', args: { resourceType: 'Text', resourceId: 2 } },
  { tool: 'get-structured-content', args: { location: 'Chicago' } },
  { tool: 'get-sum', args: { a: 2, b: 40 } },
  { tool: 'get-tiny-image', args: {} },
  { tool: 'gzip-file-as-resource', args: { name: 'note.txt.gz', data: 'data:text/plain;base64,aGVsbG8gVHVybg==', outputType: 'resource' } },
  { tool: 'toggle-simulated-logging', args: {} },
  { tool: 'toggle-subscriber-updates', args: {} },
  { tool: 'trigger-long-running-operation', args: { duration: 0.2, steps: 2 } },
  { tool: 'get-roots-list', args: {} },
  { tool: 'trigger-elicitation-request', args: {} },
  { tool: 'trigger-url-elicitation', args: { url: 'https://example.com/consent', message: 'Open the consent page.' } },
  { tool: 'trigger-sampling-request', args: { prompt: 'Say hello', maxTokens: 40 } },
  // taskSupport "required": called as a task (tasks/get polled, tasks/result), its clarifying question answered
  { tool: 'simulate-research-query', args: { topic: 'Turn agents', ambiguous: true } },
];
/** trigger-url-elicitation again, on its error path (UrlElicitationRequiredError, -32042) */
const ERROR_PATH = `let u = call("mcp_call", null, S, "trigger-url-elicitation", {"url": "https://example.com/error-path", "errorPath": true}, {});\ncall("echo", "errorpath " + call("json_stringify", u["text"]));\n`;
const EVERYTHING_TEMPLATES = ['demo://resource/dynamic/text/3', 'demo://resource/dynamic/blob/4'];
const EVERYTHING_PROMPTS: [string, Record<string, string>][] = [
  ['simple-prompt', {}],
  ['args-prompt', { city: 'Lisbon', state: 'LX' }],
  ['completable-prompt', { department: 'Engineering', name: 'Alice' }],
  ['resource-prompt', { resourceType: 'Text', resourceId: '1' }],
];

/** server-everything's questions: the form answered with a name and its defaults, the URL accepted, the research question clarified. */
function everythingAnswer(q: ElicitationQuestion): ElicitationAnswer {
  if (q.mode === 'url') return { action: 'accept' };
  const fields = Object.keys((q.requestedSchema?.properties ?? {}));
  if (fields.includes('name') && fields.includes('check')) return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com' } };
  const first = fields[0];
  const field = (q.requestedSchema?.properties as Record<string, { enum?: string[]; oneOf?: { const: string }[] }>)[first];
  return { action: 'accept', content: { [first]: field?.enum?.[0] ?? field?.oneOf?.[0]?.const ?? 'technical' } };
}

function checkEverything(r: Ran): void {
  allExercised(r.listed('tool'), EVERYTHING_CALLS.map((c) => c.tool), 'tool');
  const templates = r.listed('template');
  assert.deepEqual(templates.map((t) => t.replace('{resourceId}', '')).sort(), EVERYTHING_TEMPLATES.map((t) => t.replace(/\d+$/, '')).sort());
  allExercised(r.listed('prompt'), EVERYTHING_PROMPTS.map(([n]) => n), 'prompt');
  const resources = r.listed('resource');
  assert.ok(resources.length >= 7, `server-everything lists its resources: ${resources.join(', ')}`);
  assert.equal(r.lines.filter((l) => l.startsWith('readres ')).length, resources.length, 'every listed resource was read');
  assert.equal(r.called('echo'), 'Echo: from Turn');
  assert.equal(r.called('get-sum'), 'The sum of 2 and 40 is 42.');
  assert.match(r.called('get-roots-list'), new RegExp(pathToFileURL(granted).href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the roots are the read grant');
  // the form was answered by the host's answerer, never the model, and the server saw the content
  const form = r.questions.find((q) => q.mode === 'form' && q.message.startsWith('Please provide inputs'));
  assert.ok(form, 'the elicitation form reached the answerer');
  assert.match(r.called('trigger-elicitation-request'), /Ada Lovelace/);
  assert.match(r.called('trigger-elicitation-request'), /It was a dark and stormy night/, 'the defaults were filled in');
  assert.ok(r.questions.some((q) => q.mode === 'url' && q.url === 'https://example.com/consent'), 'the URL elicitation reached the answerer');
  assert.match(r.called('trigger-url-elicitation'), /accept/i);
  // the error path: the call fails with -32042 naming the page; once the operator accepts it, the call is sent again
  assert.ok(r.questions.some((q) => q.mode === 'url' && q.url === 'https://example.com/error-path'), 'the -32042 page reached the answerer');
  assert.match(r.lines.find((l) => l.startsWith('errorpath ')) ?? '', /accept/i);
  // sampling went to the run's (mock) model, as a model call of the run
  assert.match(r.called('trigger-sampling-request'), /mock/);
  assert.ok(r.events.some((e) => e.kind === 'mcp.sampling' && e.outcome === 'answered' && e.model === 'mock'));
  // the task-based tool ran as a task, and asked its clarifying question through tasks/result
  assert.match(r.called('simulate-research-query'), /Turn agents/);
  assert.ok(r.questions.some((q) => q.mode === 'form' && !q.message.startsWith('Please provide inputs')), 'the research task asked for a clarification');
  assert.match(r.lines.find((l) => l.startsWith('template demo://resource/dynamic/text/3 ')) ?? '', /Resource 3/);
  assert.match(r.lines.find((l) => l.startsWith('prompt args-prompt ')) ?? '', /Lisbon/);
  assert.match(r.lines.find((l) => l.startsWith('prompt resource-prompt ')) ?? '', /^prompt resource-prompt 2 /, 'the resource prompt holds a text and an embedded resource message');
  const answered = r.events.filter((e) => e.kind === 'mcp.elicitation' && e.state === 'answered');
  assert.ok(answered.length >= 3 && answered.every((e) => e.kind === 'mcp.elicitation' && e.by === 'the host'));
}

test('server-everything over stdio: every tool, resource, template and prompt from a Turn program', async () => {
  const r = await runProgram('everything-stdio.tn', program(launchMap([EVERYTHING, 'stdio']), EVERYTHING_CALLS, EVERYTHING_TEMPLATES, EVERYTHING_PROMPTS, ERROR_PATH), { allowRun: true, answer: everythingAnswer });
  checkEverything(r);
});

let http: HttpServer | undefined;
before(async () => {
  http = await everythingOverHttp();
});
after(async () => {
  await http?.stop();
});

test('server-everything over Streamable HTTP: every tool, resource, template and prompt from a Turn program', async () => {
  const r = await runProgram('everything-http.tn', program(lit(http!.url), EVERYTHING_CALLS, EVERYTHING_TEMPLATES, EVERYTHING_PROMPTS, ERROR_PATH), { allowNet: `127.0.0.1:${http!.port}`, answer: everythingAnswer });
  checkEverything(r);
});

// ---- server-filesystem (stdio only): its allowed folders are the run's roots

test('server-filesystem over stdio: every tool, on the folder the run may read (its roots)', async () => {
  const root = granted;
  const p = (f: string) => path.join(root, f);
  fs.writeFileSync(p('seed.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(p('pixel.png'), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));
  const calls: Call[] = [
    { tool: 'list_allowed_directories', args: {} },
    { tool: 'write_file', args: { path: p('note.txt'), content: 'from Turn\nsecond line\n' } },
    { tool: 'read_file', args: { path: p('note.txt') } },
    { tool: 'read_text_file', args: { path: p('seed.txt'), head: 2 } },
    { tool: 'read_media_file', args: { path: p('pixel.png') } },
    { tool: 'read_multiple_files', args: { paths: [p('note.txt'), p('seed.txt')] } },
    { tool: 'edit_file', args: { path: p('note.txt'), edits: [{ oldText: 'second line', newText: 'edited line' }] } },
    { tool: 'create_directory', args: { path: p('sub') } },
    { tool: 'list_directory', args: { path: root } },
    { tool: 'list_directory_with_sizes', args: { path: root, sortBy: 'size' } },
    { tool: 'directory_tree', args: { path: root } },
    { tool: 'move_file', args: { source: p('seed.txt'), destination: p('sub/seed.txt') } },
    { tool: 'search_files', args: { path: root, pattern: '**/seed.txt' } },
    { tool: 'get_file_info', args: { path: p('note.txt') } },
  ];
  // the launch map names no folder: the server takes the run's roots (the --allow-read grant) as its allowed folders
  const r = await runProgram('filesystem.tn', program(launchMap([FILESYSTEM]), calls, [], []), { allowRun: true });
  allExercised(r.listed('tool'), calls.map((c) => c.tool), 'tool');
  assert.match(r.called('list_allowed_directories'), new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.match(r.called('read_text_file'), /^one\ntwo$/);
  assert.match(r.called('edit_file'), /\+edited line/);
  assert.equal(fs.readFileSync(p('note.txt'), 'utf8'), 'from Turn\nedited line\n');
  assert.ok(fs.existsSync(p('sub/seed.txt')), 'move_file moved it');
  assert.match(r.called('search_files'), /sub\/seed\.txt/);
  assert.match(r.lines.join('\n'), /no resources: .*resources/i, 'server-filesystem offers no resources, and says so');
});

// ---- server-memory (stdio only): a knowledge graph, and a resource the run subscribes to

test('server-memory over stdio: every tool, its resource read and subscribed to, updates seen', async () => {
  const memoryFile = path.join(dir, 'memory.jsonl');
  const server = lit({ command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } });
  const calls: Call[] = [
    { tool: 'create_entities', args: { entities: [{ name: 'Turn', entityType: 'language', observations: ['has actors'] }, { name: 'MCP', entityType: 'protocol', observations: ['has tools'] }] } },
    { tool: 'create_relations', args: { relations: [{ from: 'Turn', to: 'MCP', relationType: 'speaks' }] } },
    { tool: 'add_observations', args: { observations: [{ entityName: 'Turn', contents: ['is durable'] }] } },
    { tool: 'search_nodes', args: { query: 'durable' } },
    { tool: 'open_nodes', args: { names: ['Turn'] } },
    { tool: 'read_graph', args: {} },
    { tool: 'delete_observations', args: { deletions: [{ entityName: 'Turn', observations: ['has actors'] }] } },
    { tool: 'delete_relations', args: { relations: [{ from: 'Turn', to: 'MCP', relationType: 'speaks' }] } },
    { tool: 'delete_entities', args: { entityNames: ['MCP'] } },
  ];
  // subscribed first: each change to the graph is a resources/updated notification
  const subscribe = `call("mcp_subscribe", null, S, "memory://knowledge-graph");\n`;
  const after = `let seen = call("mcp_updates", null, S);\ncall("echo", "updates " + call("json_stringify", seen));\ncall("mcp_unsubscribe", null, S, "memory://knowledge-graph");\n`;
  const source = program(server, calls, [], [], after).replace('list("tool", call("mcp_tools", null, S));', `list("tool", call("mcp_tools", null, S));\n${subscribe}`);
  const r = await runProgram('memory.tn', source, { allowRun: true });
  allExercised(r.listed('tool'), calls.map((c) => c.tool), 'tool');
  assert.equal(r.listed('resource').length, 1, 'server-memory lists its one resource');
  assert.equal(r.lines.filter((l) => l.startsWith('readres ')).length, 1, 'and it was read');
  assert.match(r.called('search_nodes'), /is durable/);
  assert.match(r.called('read_graph'), /speaks/);
  assert.deepEqual(JSON.parse(fs.readFileSync(memoryFile, 'utf8').trim().split('\n')[0]).name, 'Turn');
  assert.equal(r.lines.find((l) => l.startsWith('updates ')), 'updates ["memory://knowledge-graph"]', 'the subscribed resource was updated, and mcp_updates gave it once');
  assert.ok(r.events.some((e) => e.kind === 'mcp.resource' && e.uri === 'memory://knowledge-graph'));
});

// ---- std/mcp: the same, as typed values

test('std/mcp: a prompt is an McpPrompt, a resource McpContent values, a task-required tool run as a task', async () => {
  const source = `let mcp = use "std/mcp";
let S = ${launchMap([EVERYTHING, 'stdio'])};
let p = mcp.prompt(null, S, "args-prompt", {"city": "Paris", "state": null});
call("echo", call("type_of", p) + " " + p.name + " " + call("len", p.messages) + " " + p.messages[0].role);
call("echo", p.text);
let contents = mcp.read(null, S, "demo://resource/dynamic/blob/5");
call("echo", call("type_of", contents[0]) + " " + contents[0].mimeType + " " + (contents[0].text == null) + " " + (call("len", contents[0].blob) > 0));
call("echo", mcp.read_text(null, S, "demo://resource/dynamic/text/6"));
let r = mcp.call_task(null, S, "simulate-research-query", {"topic": "typed values"});
call("echo", call("len", r["text"]) > 0);
`;
  const r = await runProgram('std-mcp.tn', source, { allowRun: true });
  assert.deepEqual(r.lines.slice(0, 2), ['McpPrompt args-prompt 1 user', "What's weather in Paris?"]);
  assert.match(r.lines[2], /^McpContent text\/plain true true$/);
  assert.match(r.lines[3], /^Resource 6: /);
  assert.equal(r.lines[4], 'true');
});
