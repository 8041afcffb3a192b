// Every tools/call is a journaled effect. A tool whose annotations say readOnlyHint or
// idempotentHint is replayed or retried freely; any other call in flight when the run is killed is
// an unknown outcome, settled with `turn resolve`, never called twice. The server is a child of
// the run: killed with it, started again on resume.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnAsync } from '../cli/run-cli.js';
import { FILESYSTEM, NODE, launchMap } from './servers.js';

test('a SIGKILL during a non-idempotent MCP call leaves an unknown outcome; settled, the run resumes without calling it again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-durable-'));
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-durable-fs-')));
  const note = path.join(root, 'n.txt');
  const env = { TURN_SCHEMA_DIR: path.join(dir, '.schemas') };
  fs.writeFileSync(
    path.join(dir, 'p.tn'),
    `let files = use schema::mcp(${launchMap([FILESYSTEM, root])});
files.write_file(null, ${JSON.stringify(note)}, "count: 1");
let edited = files.edit_file(null, ${JSON.stringify(note)}, [EditFileEditsItem { oldText: "count: 1", newText: "count: 2" }], null);
call("echo", "edited: " + edited.content);
let back = files.read_text_file(null, ${JSON.stringify(note)}, null, null);
call("echo", back.content);
`,
  );
  const flags = ['--store', 'st', '--allow-run', NODE];
  // journal writes: 1-2 the write_file (intent, outcome), 3 edit_file's intent, 4 its outcome:
  // killed before 4, the server has made the edit and the journal does not know it
  const killed = await turnAsync(['run', 'p.tn', ...flags], { cwd: dir, env: { ...env, TURN_CRASH_AT: '4:before' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.equal(fs.readFileSync(note, 'utf8'), 'count: 2', 'the edit happened once, before the kill');
  const id = /run (\S+) \(store/.exec(killed.stderr)?.[1];
  assert.ok(id, killed.stderr);

  const waiting = await turnAsync(['resume', id, '--store', 'st'], { cwd: dir, env });
  assert.equal(waiting.code, 3, waiting.stderr + waiting.stdout);
  assert.match(waiting.stderr, /unknown: step 2 \(tool `mcp_call`.*it is not idempotent, so it is not re-run/);

  const settled = await turnAsync(['resolve', id, '2', '--ok', JSON.stringify({ content: 'settled by hand' }), '--store', 'st'], { cwd: dir, env });
  assert.equal(settled.code, 0, settled.stderr + settled.stdout);

  const resumed = await turnAsync(['resume', id, '--store', 'st'], { cwd: dir, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  // the settled value bound; the edit was not sent again (a second edit_file would fail: "count: 1" is gone)
  assert.deepEqual(resumed.stdout.split('\n').filter(Boolean), ['edited: settled by hand', 'count: 2']);
  assert.equal(fs.readFileSync(note, 'utf8'), 'count: 2');
});

test('an idempotent MCP call in flight at a kill is simply called again on resume', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-durable-'));
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-durable-fs-')));
  const note = path.join(root, 'n.txt');
  const env = { TURN_SCHEMA_DIR: path.join(dir, '.schemas') };
  fs.writeFileSync(
    path.join(dir, 'p.tn'),
    `let files = use schema::mcp(${launchMap([FILESYSTEM, root])});
files.write_file(null, ${JSON.stringify(note)}, "written");
let back = files.read_text_file(null, ${JSON.stringify(note)}, null, null);
call("echo", back.content);
`,
  );
  // killed before the write_file's outcome (idempotentHint: true): the resume writes it again
  const killed = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-run', NODE], { cwd: dir, env: { ...env, TURN_CRASH_AT: '2:before' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const id = /run (\S+) \(store/.exec(killed.stderr)?.[1];
  assert.ok(id, killed.stderr);
  const resumed = await turnAsync(['resume', id, '--store', 'st'], { cwd: dir, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(resumed.stdout.split('\n').filter(Boolean), ['written']);
});
