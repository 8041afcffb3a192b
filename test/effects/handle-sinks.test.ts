// Every sink where an identity handle would be shown or sent as data (issue 26, point 6), beyond
// the HTTP request parts (handle-as-data.test.ts): output, the run's result, events, model
// prompts, the knowledge store, an MCP tool's arguments, a file's content (a message may carry one:
// test/security/forged-handles.test.ts). Each
// is refused with an error at the program's line and nothing is written or sent; the credential
// argument of a call still takes the handle itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../runtime/index.js';

async function run(program: string, extra: { allowKnowledge?: boolean } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-handle-sinks-'));
  const file = path.join(dir, 'p.tn');
  // `as_any` hides the handle's type from the analyzer, so each refusal is the run time's
  fs.writeFileSync(file, `let as_any = turn(x: Any) -> Any { return x; };\nlet h = as_any(grant identity::bearer("svc"));\n${program}`);
  const lines: string[] = [];
  const run = await startRun({
    file, cwd: dir, model: 'mock', fetchSchemas: false,
    env: { TURN_SECRET_SVC: 'tn-sink-secret-91', TURN_STORE_DIR: path.join(dir, 'store') },
    authority: { allowWrite: [dir], ...extra },
    onOutput: (l) => lines.push(l),
  });
  return { result: await run.start(), lines, dir };
}

const cases: [string, string, RegExp][] = [
  ['echo', 'call("echo", {"k": [h]});', /an identity handle cannot be printed/],
  ['result', 'return {"k": h};', /result holds an identity handle/],
  ['emit', 'call("emit", {"who": h});', /an identity handle cannot be emitted as an event/],
  ['prompt', 'let s: Str = infer Str { [h, "summarise"]; };', /an identity handle cannot be put in a context/],
  ['knowledge', 'let kb = use "std/knowledge";\nkb.material("https://example.org/a", "text", {"h": h});', /cannot be sent as data to kb_put \(argument 2\)/],
  ['mcp arguments', 'call("mcp_call", null, {"command": "node", "args": ["server.js"]}, "echo", {"token": h});', /cannot be sent as data to mcp_call \(argument 4\)/],
  ['mcp auth nested', 'call("mcp_call", [h], {"command": "node"}, "echo", {});', /cannot be sent as data to mcp_call \(argument 1\)/],
  ['file content', 'call("fs_write", null, "out.txt", [h]);', /cannot be sent as data to fs_write \(argument 3\)/],
  ['env', 'call("env_get", h);', /cannot be sent as data to env_get \(argument 1\).*env_get takes no identity/],
];

for (const [name, program, message] of cases) {
  test(`a handle is refused as data: ${name}`, async () => {
    const { result, lines, dir } = await run(program, name === 'knowledge' ? { allowKnowledge: true } : {});
    assert.equal(result.kind, 'failed', JSON.stringify(result).slice(0, 400));
    if (result.kind !== 'failed') return;
    assert.match(result.error.message, message);
    assert.ok(result.error.line !== undefined && result.error.line >= 3, `located in the program: ${JSON.stringify(result.error)}`);
    assert.doesNotMatch(lines.join('\n') + result.error.message, /tn-sink-secret-91/);
    assert.ok(!fs.existsSync(path.join(dir, 'out.txt')), 'no file written');
    if (name === 'knowledge') {
      // nothing reached the store: opening it would have been the first thing kb_put did
      assert.ok(!fs.existsSync(path.join(dir, 'store', 'knowledge.db')), 'the knowledge store was not written');
    }
  });
}

test('the credential argument still takes the handle itself: a file grant passed as identity::filesystem', async () => {
  const { result, dir } = await run('let fsys = grant identity::filesystem("out");\ncall("fs_write", fsys, "out.txt", "fine");\nreturn 1;');
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
  assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8'), 'fine');
});
