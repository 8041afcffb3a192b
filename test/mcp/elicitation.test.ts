// What an MCP server asks the client, through the built `turn` with server-everything over stdio:
// elicitation is answered by the operator and never by the model (`--answer`, or refused without a
// terminal: the server sees `decline`; in a durable run the run waits and `turn resume --answer`
// answers, once), an answer that does not fit the form is no answer, and sampling goes to the
// run's model under its budget, or is refused when the run has none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnAsync } from '../cli/run-cli.js';
import { EVERYTHING, NODE, launchMap } from './servers.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-elicit-')));
const S = launchMap([EVERYTHING, 'stdio']);

function program(name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  return file;
}

const events = (file: string): Record<string, unknown>[] =>
  fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

const form = program('form.tn', `let S = ${S};\ncall("echo", "before");\nlet r = call("mcp_call", null, S, "trigger-elicitation-request", {}, {});\ncall("echo", "got " + r["text"]);\n`);
const run = (args: string[]) => turnAsync(args, { cwd: dir, env: {} });

test('without a terminal or an answer, the server is told decline, and the trace says why', async () => {
  const trace = path.join(dir, 'declined.jsonl');
  const r = await run(['run', form, '--allow-run', NODE, '--trace-file', trace]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /User declined to provide the requested information/);
  const asked = events(trace).filter((e) => e.kind === 'mcp.elicitation');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].state, 'refused');
  assert.equal(asked[0].action, 'decline');
  assert.match(String(asked[0].by), /no terminal to ask on/);
  assert.match(String(asked[0].key), /^q-[0-9a-f]{12}$/);
});

test('--answer KEY=JSON answers the form (defaults filled in); an answer with a field the form does not ask for is no answer', async () => {
  const trace = path.join(dir, 'key.jsonl');
  await run(['run', form, '--allow-run', NODE, '--trace-file', trace]);
  const key = String(events(trace).find((e) => e.kind === 'mcp.elicitation')!.key);
  const r = await run(['run', form, '--allow-run', NODE, '--answer', `${key}={"name": "Ada", "check": true, "email": "ada@example.com"}`]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /- Name: Ada/);
  assert.match(r.stdout, /"firstLine": "It was a dark and stormy night\."/, 'the default of a field left out was filled in');
  // a field the question does not ask for: the answer does not fit, so it is not given to the server
  const trace2 = path.join(dir, 'bad.jsonl');
  const bad = await run(['run', form, '--allow-run', NODE, '--trace-file', trace2, '--answer', `${key}={"name": "Ada", "isAdmin": true}`]);
  assert.equal(bad.code, 0, bad.stderr);
  assert.match(bad.stdout, /User declined/);
  assert.doesNotMatch(bad.stdout, /isAdmin/);
  assert.match(String(events(trace2).find((e) => e.kind === 'mcp.elicitation')!.by), /field "isAdmin" the question does not ask for/);
  // a malformed flag is a usage error before anything runs
  const usage = await run(['run', form, '--allow-run', NODE, '--answer', 'name=Ada']);
  assert.equal(usage.code, 64, usage.stderr); // EXIT.usage
  assert.match(usage.stderr, /--answer takes KEY=ANSWER/);
});

test('a durable run waits on the question, names it and how to answer; turn resume --answer answers it once', async () => {
  const store = path.join(dir, 'store');
  const first = await run(['run', form, '--store', store, '--allow-run', NODE]);
  assert.equal(first.code, 3, first.stderr);
  assert.equal(first.stdout.trim(), 'before');
  const id = /waiting: (\S+)/.exec(first.stderr)![1];
  const question = /question: step \d+ \(tool `mcp_call`\): .*asks for name, check.*"Please provide inputs for the following fields:" \(question (q-[0-9a-f]{12})\)/.exec(first.stderr);
  assert.ok(question, first.stderr);
  assert.match(first.stderr, new RegExp(`turn resume ${id} --answer ${question[1]}='\\{`));
  const listed = await run(['runs', '--store', store]);
  assert.match(listed.stdout, new RegExp(`${id}\\s+waiting`));
  // the wrong answer keeps it waiting (and is not sent)
  const wrong = await run(['resume', id, '--store', store, '--allow-run', NODE, '--answer', `${question[1]}={"check": "yes"}`]);
  assert.equal(wrong.code, 3, wrong.stderr);
  assert.match(wrong.stderr, /question: /);
  const trace = path.join(dir, 'resumed.jsonl');
  const resumed = await run(['resume', id, '--store', store, '--allow-run', NODE, '--trace-file', trace, '--answer', `${question[1]}={"name": "Grace", "check": true, "email": "grace@example.com"}`]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /^got .*User provided the requested information/m);
  assert.match(resumed.stdout, /- Name: Grace/);
  assert.doesNotMatch(resumed.stdout, /^before$/m, 'the line printed before the question is not printed again');
  const answered = events(trace).filter((e) => e.kind === 'mcp.elicitation');
  assert.deepEqual(answered.map((e) => [e.state, e.by]), [['answered', '--answer']]);
  // done: the answer is in the journal's outcome of the call, and nothing is asked again
  const again = await run(['resume', id, '--store', store, '--allow-run', NODE]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /already done/);
});

const sampling = program('sampling.tn', `let S = ${S};
let i = 0;
while i < 2 {
  try { let r = call("mcp_call", null, S, "trigger-sampling-request", {"prompt": "Say hello", "maxTokens": 30}, {}); call("echo", "sampled " + r["text"]); }
  catch (e) { call("echo", "refused " + e["message"]); }
  let i = i + 1;
}
`);

test('sampling: refused when the run has no model; with one, answered and counted against --max-model-calls', async () => {
  const none = await run(['run', sampling, '--allow-run', NODE]);
  assert.equal(none.code, 0, none.stderr);
  const lines = none.stdout.split('\n').filter(Boolean);
  assert.equal(lines.length, 2);
  for (const l of lines) assert.match(l, /^refused .*has no model to sample with \(run it with --model\)/);
  const trace = path.join(dir, 'sampling.jsonl');
  const budget = await run(['run', sampling, '--allow-run', NODE, '--model', 'mock', '--max-model-calls', '1', '--trace-file', trace]);
  assert.equal(budget.code, 0, budget.stderr);
  const [first, second] = budget.stdout.split('\n').filter((l) => l.startsWith('sampled ') || l.startsWith('refused '));
  assert.match(first, /^sampled LLM sampling result/);
  assert.match(budget.stdout, /"model": "mock"/, 'the server was told which model answered');
  assert.match(second, /^refused .*model call budget/i);
  const told = events(trace).filter((e) => e.kind === 'mcp.sampling').map((e) => e.outcome);
  assert.deepEqual(told, ['answered', 'refused']);
});

test("the call's time limit stops while a person answers: an answer slower than --tool-timeout still reaches the server", async () => {
  const { startRun } = await import('../../runtime/index.js');
  const lines: string[] = [];
  let asked = 0;
  // the server is started first: a launch slower than the limit (a loaded machine) fails a listing,
  // and the next one waits on the same start; then the server is asked to ask
  const warm = path.join(dir, 'warm.tn');
  fs.writeFileSync(
    warm,
    `let S = ${S};\nlet up = false;\nlet tries = 0;\nwhile !up and tries < 30 { try { call("mcp_tools", null, S); let up = true; } catch (e) { let tries = tries + 1; } }\n` +
      `call("echo", "listed after " + tries + " time-outs");\nlet r = call("mcp_call", null, S, "trigger-elicitation-request", {}, {});\ncall("echo", r["text"]);\n`,
  );
  const run = await startRun({
    file: warm,
    cwd: dir,
    fetchSchemas: false,
    askOnTerminal: false,
    // the limit of every tool call, and of the MCP request under it; the person below takes longer
    toolTimeoutMs: 4000,
    authority: { allowRun: [NODE] },
    elicit: async () => {
      asked++;
      await new Promise((r) => setTimeout(r, 5000));
      return { action: 'accept', content: { name: 'Slow Sam', check: true } };
    },
    onOutput: (l) => lines.push(l),
  });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(asked, 1);
  assert.match(lines.join('\n'), /- Name: Slow Sam/);
});
