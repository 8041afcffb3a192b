// Budgets that keep a runaway program from taking the process down or holding it forever
// (docs/reliability.md): the allocation budget (`--max-alloc`), linear-time regular expressions, the
// time limit of an effect tool call (`--tool-timeout`), steps counted when a process resumes from a
// wait, and the run's wall-clock budget (`--max-time`). Each reproducer ends with a Turn error at
// its line, never a dead process. Child processes run the CLI from source with a small heap, so a
// regression fails fast instead of filling the machine's memory; nothing here asserts on timing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun, type RunOptions, type RunResult } from '../../runtime/index.js';

const ROOT = path.join(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-budgets-'));

// A server that takes every request and never answers: an effect that hangs.
const silent = http.createServer(() => {});
let silentUrl = '';
before(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
});
after(() => {
  // the requests still waiting fail at once, so nothing outlives the file
  silent.closeAllConnections();
  silent.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A request to the silent server, with an HTTP timeout of its own far beyond any test's. */
const hangingRequest = (): string => `net.request(null, "GET", "${silentUrl}", {"timeout_ms": 600000})`;

let files = 0;
function program(source: string): string {
  const file = path.join(tmp, `p${files++}.tn`);
  fs.writeFileSync(file, source);
  return file;
}

/** `turn run FILE ARGS` from source, in a child with a `heapMb` heap; killed after 5 min (only a hang reaches that). */
function turnRun(file: string, args: string[] = [], heapMb = 512): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', path.join(ROOT, 'cli', 'main.ts'), 'run', file, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, TURN_MODEL: 'mock' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a program in this process through the run API. */
async function runIn(source: string, options: Omit<RunOptions, 'file'> = {}): Promise<{ result: RunResult; lines: string[] }> {
  const lines: string[] = [];
  const run = await startRun({ file: program(source), cwd: tmp, model: 'mock', onOutput: (l) => lines.push(l), ...options });
  return { result: await run.start(), lines };
}

function failure(result: RunResult): { message: string; line: number } {
  assert.equal(result.kind, 'failed', `expected the run to fail, got ${JSON.stringify(result.kind === 'done' ? result.rendered : result)}`);
  return result.kind === 'failed' ? result.error : { message: '', line: 0 };
}

/** A Turn run-time error at FILE:LINE, not a crash (no V8 abort, no JavaScript stack). */
function assertTurnError(r: { code: number | null; stderr: string }, file: string, line: number, message: RegExp): void {
  assert.equal(r.code, 1, `exit code: ${r.code}\n${r.stderr.slice(0, 2000)}`);
  assert.match(r.stderr, new RegExp(`${path.basename(file).replace('.', '\\.')}:${line}:\\d+: runtime error: `));
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /FATAL ERROR|JavaScript heap|\n\s+at .+\.(js|ts):\d+/);
}

// ---------------------------------------------------------------------------------------------
// Memory

test('call("range", 1e9) fails at its line before it allocates, instead of a V8 abort', () => {
  const file = program('let n = 1000000000;\nlet l = call("range", n);\ncall("echo", call("len", l));\n');
  const r = turnRun(file);
  assertTurnError(r, file, 2, /allocation budget of 50000000 exhausted.*--max-alloc/);
  assert.equal(r.stdout, '');
});

test('a list_concat(l, l) loop under --max-steps 100000 ends with a Turn error at the line, not a dead process', () => {
  const file = program('let l = [1];\nwhile true {\n    let l = call("list_concat", l, l);\n}\n');
  assertTurnError(turnRun(file, ['--max-steps', '100000'], 1024), file, 3, /allocation budget of 50000000 exhausted/);
});

test('--max-alloc N sets the budget and 0 lifts it', () => {
  const file = program('let l = call("range", 100000);\ncall("echo", call("len", l));\n');
  assertTurnError(turnRun(file, ['--max-alloc', '1000']), file, 1, /allocation budget of 1000 exhausted/);
  const r = turnRun(file, ['--max-alloc', '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '100000\n');
});

test('an exhausted allocation budget ends the run: a catch does not swallow it', async () => {
  const { result, lines } = await runIn(
    'try {\n    let big = call("range", 1000000);\n} catch (e) {\n    call("echo", "caught");\n}\ncall("echo", "after");\n',
    { maxAlloc: 10_000 },
  );
  const error = failure(result);
  assert.match(error.message, /allocation budget of 10000 exhausted/);
  assert.equal(error.line, 2);
  assert.deepEqual(lines, []);
});

test('values made by operators, literals, copies to other processes and string building all spend the budget', async () => {
  const cases: [string, number][] = [
    ['let l = [1];\nwhile true {\n    let l = l + l;\n}\n', 3], // list `+`
    ['let s = "ab";\nwhile true {\n    let s = s + s;\n}\n', 3], // text doubling
    ['let i = 0;\nlet all = [];\nwhile true {\n    let all = call("list_push", all, {"i": i, "sq": i * i});\n    let i = i + 1;\n}\n', 4], // map literals and copies
    ['let big = call("range", 100);\nlet me = call("self");\nwhile true {\n    send me, big;\n}\n', 4], // each message is a deep copy
    ['while true {\n    spawn turn() { return receive; };\n}\n', 2], // each process costs its record
  ];
  for (const [source, line] of cases) {
    const error = failure((await runIn(source, { maxAlloc: 200_000, maxSteps: 10_000_000 })).result);
    assert.match(error.message, /allocation budget of 200000 exhausted/, source);
    assert.equal(error.line, line, source);
  }
});

test('the default budget leaves the ordinary program alone', async () => {
  const { result, lines } = await runIn(
    `let words = call("str_split", "the quick brown fox", " ");
let out = "";
let round = 0;
while round < 500 {
    let j = 0;
    while j < 4 {
        let out = out + words[j] + " ";
        let j = j + 1;
    }
    let round = round + 1;
}
call("echo", call("len", out));
return map(call("range", 1000), turn(x: Num) -> Map { return {"x": x}; })[999];
`,
  );
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['10000']);
});

// ---------------------------------------------------------------------------------------------
// Time: regular expressions, tool calls, waiting

test('regex_match("^(a+)+$", "aaaa…a!") answers at once (a linear-time engine), not after minutes', () => {
  const file = program(`let r = call("regex_match", "^(a+)+$", "${'a'.repeat(34)}!");\ncall("echo", r);\ncall("echo", call("regex_match", "^(a+)+$", "${'a'.repeat(34)}"));\n`);
  const r = turnRun(file);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'false\ntrue\n');
});

test('a pattern with a backreference or lookaround is refused with a message that says why', async () => {
  for (const [pattern, what] of [
    ['(a)\\\\1', /a backreference \(\\1, \\k<name>\) is not supported/],
    ['(?<w>a)\\\\k<w>', /backreferences/],
    ['a(?=b)', /a lookahead assertion/],
    ['(?<!a)b', /a lookbehind assertion/],
  ] as const) {
    const error = failure((await runIn(`let regex = use "std/regex";\nregex.match("${pattern}", "aa");\n`)).result);
    assert.match(error.message, what, pattern);
    assert.match(error.message, /linear/, pattern);
  }
});

test('std/regex keeps JavaScript pattern syntax: named groups, \\u escapes, flags, $-replacements, split with groups', async () => {
  const { result } = await runIn(`let regex = use "std/regex";
let m = regex.find("(?<y>\\\\d{4})-(?<m>\\\\d\\\\d)", "on 2024-05.");
return [
    m,
    regex.match("^\\\\u00e9+$", "éé"),
    regex.match_flags("^B$", "a\\nb", "im"),
    regex.replace("(\\\\w)(\\\\d)", "a1 b2", "$2$1"),
    regex.replace("(?<l>[a-z])", "ab", "<$<l>>"),
    regex.split("(,)\\\\s*", "a, b,c"),
    regex.find_all("a*", "baab")
];
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(result.kind === 'done' ? result.json : null, [
    { match: '2024-05', index: 3, groups: ['2024', '05'], named: { y: '2024', m: '05' } },
    true,
    true,
    '1a 2b',
    '<a><b>',
    ['a', ',', 'b', ',', 'c'],
    [
      { match: '', index: 0, groups: [], named: {} },
      { match: 'aa', index: 1, groups: [], named: {} },
      { match: '', index: 3, groups: [], named: {} },
      { match: '', index: 4, groups: [], named: {} },
    ],
  ]);
});

test('an effect tool call that hangs fails after --tool-timeout with an EffectError the program can catch', { timeout: 30_000 }, async () => {
  const { result } = await runIn(
    `let net = use "std/net";\ntry {\n    ${hangingRequest()};\n    return "answered";\n} catch (e) {\n    return e;\n}\n`,
    { toolTimeoutMs: 200, authority: { allowNet: ['127.0.0.1'] } },
  );
  assert.equal(result.kind, 'done', JSON.stringify(result));
  const e = (result.kind === 'done' ? result.json : {}) as Record<string, unknown>;
  assert.equal(e.type, 'EffectError');
  assert.equal(e.tool, 'http_request');
  assert.match(String(e.message), /http_request took longer than 0\.2 s.*--tool-timeout/);
});

test('steps count when a process resumes from a wait: --max-steps bounds a program that only waits', async () => {
  const source = 'receive(1);\nreceive(1);\nreceive(1);\nreceive(1);\nreceive(1);\nreturn "done";\n';
  const error = failure((await runIn(source, { maxSteps: 3 })).result);
  assert.match(error.message, /step budget of 3 exhausted/);
  const { result } = await runIn(source, { maxSteps: 100 });
  assert.equal(result.kind, 'done');
});

test('--max-time ends `while true { receive(50) }` with a Turn error where main waits', () => {
  const file = program('while true {\n    receive(50);\n}\n');
  assertTurnError(turnRun(file, ['--max-steps', '1000', '--max-time', '1']), file, 2, /time budget of 1 s exhausted; raise it with --max-time/);
});

test('maxTimeMs ends a busy loop, and a run waiting on an effect, where main stands', { timeout: 60_000 }, async () => {
  // a busy loop (the step budget is only a backstop)
  const busy = failure((await runIn('let i = 0;\nwhile true {\n    let i = i + 1;\n}\n', { maxTimeMs: 100, maxSteps: 1_000_000_000 })).result);
  assert.match(busy.message, /time budget of 0\.1 s exhausted/);
  assert.ok(busy.line === 2 || busy.line === 3, `line ${busy.line}`);
  // a wait on an effect that does not end (the tool time limit lifted)
  const waiting = failure(
    (await runIn(`let net = use "std/net";\n${hangingRequest()};\n`, { maxTimeMs: 100, toolTimeoutMs: 0, authority: { allowNet: ['127.0.0.1'] } })).result,
  );
  assert.match(waiting.message, /time budget of 0\.1 s exhausted/);
});
