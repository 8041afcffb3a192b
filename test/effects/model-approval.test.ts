// `--approve-effects model` with approval refused (issue 26, item 6): the model call reached the
// server anyway, because the model budget's check never asked. Every run's model calls go through
// one gate (budgetedModel, built once in runtime/run/host.ts for the CLI, the panel, the debugger
// and the Restate worker); a refusal stops the call before any request leaves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startRun } from '../../runtime/index.js';
import { turnAsync } from '../cli/run-cli.js';

let server: http.Server;
let port = 0;
let asked = 0;
before(async () => {
  server = http.createServer((req, res) => {
    asked++;
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'r1', model: 'm', choices: [{ message: { content: '{"value": "hello", "confidence": 0.9}' }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

const model = () => `openai:m?base_url=http://127.0.0.1:${port}/v1`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-approval-'));
const file = path.join(dir, 'p.tn');
fs.writeFileSync(file, 'let v = "none";\ntry { let v = infer Str { "Say hello."; }; } catch (e) { call("echo", "refused: " + e["message"]); }\ncall("echo", "got " + v);\n');

test('turn run --approve-effects model --approve none: the model call never reaches the server', async () => {
  const before = asked;
  const r = await turnAsync(['run', file, '--model', model(), '--approve-effects', 'model', '--approve', 'none'], { cwd: dir, env: { OPENAI_API_KEY: 'sk-test-approval-0001' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(asked, before, 'no request reached the model server');
  assert.match(r.stdout, /^refused: .*a model call to openai:m \(infer Str\) was not approved/m);
  assert.match(r.stdout, /^got none$/m);
  const allowed = await turnAsync(['run', file, '--model', model(), '--approve-effects', 'model', '--approve', 'all'], { cwd: dir, env: { OPENAI_API_KEY: 'sk-test-approval-0001' } });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(asked, before + 1);
  assert.match(allowed.stdout, /^got hello$/m);
});

test('the run API (panel, debugger): an approval hook that refuses stops the call, and is asked with what the call is', async () => {
  const before = asked;
  const seen: string[] = [];
  const lines: string[] = [];
  const run = await startRun({
    file,
    cwd: dir,
    model: model(),
    env: { OPENAI_API_KEY: 'sk-test-approval-0001' },
    fetchSchemas: false,
    authority: { approveEffects: ['model'], approve: (request) => (seen.push(`${request.effect}: ${request.summary}`), Promise.resolve('deny')) },
    onOutput: (l) => lines.push(l),
  });
  const result = await run.start();
  assert.equal(result.kind, 'done');
  assert.equal(asked, before);
  assert.deepEqual(seen, ['model: a model call to openai:m (infer Str)']);
  assert.deepEqual(lines.slice(-1), ['got none']);
});
