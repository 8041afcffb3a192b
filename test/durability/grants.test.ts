// Each journaled effect records the capability that allowed it (issue 26, point 6): the grant's
// category, the part of it that matched (host pattern, file root, variable pattern, model
// budget), where it came from (a CLI flag, an editor setting) and the identity the program
// granted. `turn inspect` shows it in text and --json; a journal written before the field still
// loads and inspects.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startRun, openStore, inspectRun, type RunInspection } from '../../runtime/index.js';
import { jsonBytes } from '../../runtime/durable/index.js';
import { inspectionText } from '../../cli/runs.js';
import { turn } from '../cli/run-cli.js';

let server: http.Server;
let port = 0;
before(async () => {
  server = http.createServer((_req, res) => res.end('pong'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

const program = (url: string) => `let net = use "std/net";
let svc = grant identity::bearer("svc");
let reply = net.request(svc, "GET", "${url}", {});
let text = call("fs_read", null, "data/in.txt");
let mode = call("env_get", "APP_MODE");
let said: Str = infer Str { "say hi"; };
let t = call("time_now_ms");
call("echo", reply["body"] + " " + text + " " + mode);
`;

async function durableRun(grantedBy?: 'settings') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-grants-'));
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'data', 'in.txt'), 'in');
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, program(`http://127.0.0.1:${port}/ping`));
  const store = path.join(dir, '.turn');
  const lines: string[] = [];
  const run = await startRun({
    file, cwd: dir, model: 'mock', fetchSchemas: false, store,
    env: { TURN_SECRET_SVC: 'tn-grant-secret-55', APP_MODE: 'fast' },
    authority: { allowNet: ['127.0.0.1:*'], allowRead: ['data'], allowEnv: ['APP_*'], maxModelCalls: 4, ...(grantedBy ? { grantedBy } : {}) },
    onOutput: (l) => lines.push(l),
  });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
  assert.deepEqual(lines, ['pong in fast']);
  const st = openStore(store);
  try {
    return { dir, store, inspection: inspectRun(st, st.listRuns()[0].id, 100) };
  } finally {
    st.close();
  }
}

const grantsOf = (i: RunInspection) => Object.fromEntries(i.journal.filter((e) => e.kind !== 'output').map((e) => [e.name, e.grant]));

test('every effect of a durable run journals the grant that allowed it, with its source and identity', async () => {
  const { dir, inspection } = await durableRun();
  const g = grantsOf(inspection);
  assert.deepEqual(g.http_request, { capability: 'network', scope: '127.0.0.1:*', from: '--allow-net', identity: 'identity::bearer("svc")' });
  assert.deepEqual(g.fs_read, { capability: 'files', scope: `read ${path.join(dir, 'data')}`, from: '--allow-read' });
  assert.deepEqual(g.env_get, { capability: 'env', scope: 'APP_*', from: '--allow-env' });
  assert.deepEqual(g.Str, { capability: 'model', scope: 'budget 4 calls', from: '--max-model-calls' });
  assert.deepEqual(g.time_now_ms, { capability: 'clock', scope: 'the clock', from: 'every run' });
  const text = inspectionText(inspection);
  assert.match(text, /http_request .*\n\s+granted by network 127\.0\.0\.1:\* \(--allow-net\) with identity::bearer\("svc"\)/);
  assert.match(text, /env_get .*\n\s+granted by env APP_\* \(--allow-env\)/);
  assert.doesNotMatch(JSON.stringify(inspection) + text, /tn-grant-secret-55/);
});

test('a run the editor started names its settings as the source', async () => {
  const { inspection } = await durableRun('settings');
  const g = grantsOf(inspection);
  assert.equal(g.http_request?.from, 'turn.run.allowNet');
  assert.equal(g.fs_read?.from, 'turn.run.allowRead');
  assert.equal(g.Str?.from, 'turn.run.maxModelCalls');
});

test('turn inspect --json and text show the grant; an entry journaled before the field still inspects', async () => {
  const { dir, store } = await durableRun();
  const st = openStore(store);
  let id: string;
  try {
    id = st.listRuns()[0].id;
    // an effect as an older Turn journaled it: its request without a grant
    const seq = st.appendJournal(id, { kind: 'tool', name: 'fs_read', pid: 1, inputHash: 'old', status: 'intent', idempotencyKey: `turn:${id}:e99`, idempotent: true, payload: jsonBytes({ name: 'fs_read', args: [null, 'data/in.txt'] }) });
    st.completeJournal(id, seq, 'ok', jsonBytes('in'));
  } finally {
    st.close();
  }
  const json = turn(['inspect', id, '--store', store, '--json', '--tail', '100'], { cwd: dir });
  assert.equal(json.code, 0, json.stderr);
  const journal = (JSON.parse(json.stdout) as RunInspection).journal;
  assert.equal(journal.find((e) => e.name === 'env_get')?.grant?.scope, 'APP_*');
  const old = journal.at(-1)!;
  assert.equal(old.name, 'fs_read');
  assert.equal(old.grant, null);
  const text = turn(['inspect', id, '--store', store, '--tail', '100'], { cwd: dir });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /granted by network 127\.0\.0\.1:\* \(--allow-net\) with identity::bearer\("svc"\)/);
  const lastLine = text.stdout.trimEnd().split('\n').at(-1)!;
  assert.match(lastLine, /fs_read\s+ok/, 'the old entry is listed, with no grant line after it');
});
