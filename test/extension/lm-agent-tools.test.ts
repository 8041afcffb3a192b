// Turn agents offered to VS Code's agent mode as `turn mcp` server definitions
// (extension/lm/agent-tools.ts): the command VS Code runs, with the settings' grants as flags and
// named in the label; a `vscode:` model (editor only) is not passed to the child; test files are
// not offered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentServer, grantsText, mayServe } from '../../extension/lm/agent-tools.js';
import { readRunSettings } from '../../extension/settings.js';

const settingsOf = (values: Record<string, unknown>) => readRunSettings(<T>(key: string, dflt: T) => (key in values ? (values[key] as T) : dflt));
const rt = { execPath: '/usr/bin/node', electron: false, cliPath: '/ext/dist/cli.js' };

test('a served file becomes `node dist/cli.js mcp FILE` with the grants of turn.run.* as flags, named in the label', () => {
  const s = settingsOf({ model: 'openai:gpt-4o-mini', 'run.allowNet': ['api.example.com'], 'run.allowRead': ['data'] });
  const d = agentServer(rt, '/ws/agents/triage.tn', s, '/ws');
  assert.equal(d.command, '/usr/bin/node');
  assert.deepEqual(d.args.slice(0, 3), ['/ext/dist/cli.js', 'mcp', '/ws/agents/triage.tn']);
  assert.deepEqual(d.args.slice(3), ['--model', 'openai:gpt-4o-mini', '--allow-net', 'api.example.com', '--allow-read', '/ws/data']);
  assert.equal(d.label, 'Turn: agents/triage.tn (net api.example.com; read data)');
  assert.deepEqual(d.env, {});
  assert.deepEqual(agentServer({ ...rt, electron: true }, '/ws/a.tn', s, '/ws').env, { ELECTRON_RUN_AS_NODE: '1' });
  assert.equal(grantsText(settingsOf({})), 'no grants');
});

test('a vscode: model is not passed to turn mcp (it exists only in the editor): the label says so', () => {
  const d = agentServer(rt, '/ws/a.tn', settingsOf({ model: 'vscode:copilot/gpt-4o' }), '/ws');
  assert.ok(!d.args.includes('--model'), d.args.join(' '));
  assert.ok(!d.args.some((a) => a.startsWith('vscode:')));
  assert.match(d.label, /model: not vscode:copilot\/gpt-4o, which exists only in the editor's runs/);
});

test('test files (which return their tests as closures) are not offered', () => {
  assert.equal(mayServe('/ws/triage.tn'), true);
  assert.equal(mayServe('/ws/triage_test.tn'), false);
  assert.equal(mayServe('/ws/notes.md'), false);
});
