import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildGenInvocation, buildRunInvocation, describeInvocation, generatedClientPath } from '../../extension/run-command.js';
import { presentStatus } from '../../extension/status-model.js';
import { cliArgsFromSettings, readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';

/** A `turn` configuration section with these values set. */
const settingsGet = (values: Record<string, unknown>) => <T>(key: string, dflt: T): T => (key in values ? (values[key] as T) : dflt);

describe('the turn.* settings, read once for the task, the panel and the debugger', () => {
  it('defaults to the mock model and grants nothing', () => {
    const s = readRunSettings(settingsGet({}));
    assert.equal(s.model, 'mock');
    assert.deepEqual(cliArgsFromSettings(s, '/w'), ['--model', 'mock']);
    assert.equal(readRunSettings(settingsGet({ model: '  ' })).model, 'mock', 'a blank model is the default');
  });

  it('gives the run panel and the debugger the same authority as the terminal', () => {
    const s = readRunSettings(settingsGet({
      model: 'script:a.json', 'run.allowNet': ['127.0.0.1:*'], 'run.allowRead': ['data', '/abs'], 'run.allowWrite': ['out'],
      'run.allowEnv': ['HOME'], 'run.allowRun': ['node'], 'run.approveEffects': ['network'], 'run.maxModelCalls': 3, 'run.maxSteps': 1000,
      'run.maxAlloc': 5000, 'run.maxTimeSeconds': 7, 'run.toolTimeoutSeconds': 2, 'run.contextWorking': 100,
    }));
    const o = runOptionsFromSettings(s, '/w');
    assert.equal(o.model, 'script:a.json');
    assert.equal(o.maxSteps, 1000);
    assert.deepEqual([o.maxAlloc, o.maxTimeMs, o.toolTimeoutMs], [5000, 7000, 2000]);
    assert.deepEqual(o.context, { working: 100, episodic: undefined });
    assert.deepEqual(o.authority, {
      allowNet: ['127.0.0.1:*'], allowRead: ['/w/data', '/abs'], allowWrite: ['/w/out'], allowEnv: ['HOME'], allowRun: ['node'], approveEffects: ['network'], maxModelCalls: 3, grantedBy: 'settings',
    });
    assert.deepEqual(cliArgsFromSettings(s, '/w'), [
      '--model', 'script:a.json', '--allow-net', '127.0.0.1:*', '--allow-read', '/w/data,/abs', '--allow-write', '/w/out',
      '--allow-env', 'HOME', '--allow-run', 'node', '--approve-effects', 'network', '--max-model-calls', '3', '--max-steps', '1000',
      '--max-alloc', '5000', '--max-time', '7', '--tool-timeout', '2', '--context-working', '100',
    ]);
  });

  it('ignores malformed values instead of passing them on', () => {
    const s = readRunSettings(settingsGet({ 'run.allowNet': 'api.example.com', 'run.maxModelCalls': -2, 'run.allowRead': [7, '', 'ok'] }));
    assert.deepEqual(s.allowNet, []);
    assert.equal(s.maxModelCalls, undefined);
    assert.deepEqual(s.allowRead, ['ok']);
  });
});

describe('buildRunInvocation', () => {
  const base = { execPath: '/usr/bin/node', electron: false, cliPath: '/ext/dist/cli.js', file: '/w/my prog.tn', flags: ['--model', 'mock'] };

  it('runs the bundled CLI with the settings as flags', () => {
    assert.deepEqual(buildRunInvocation(base), {
      command: '/usr/bin/node',
      args: ['/ext/dist/cli.js', 'run', '/w/my prog.tn', '--model', 'mock'],
      env: {},
    });
  });

  it('runs Electron as Node', () => {
    const inv = buildRunInvocation({ ...base, electron: true, execPath: '/opt/Code/code' });
    assert.deepEqual(inv.env, { ELECTRON_RUN_AS_NODE: '1' });
  });

  it('describes the invocation as a shell line', () => {
    assert.equal(
      describeInvocation(buildRunInvocation({ ...base, electron: true })),
      "ELECTRON_RUN_AS_NODE=1 /usr/bin/node /ext/dist/cli.js run '/w/my prog.tn' --model mock",
    );
  });
});

describe('presentStatus', () => {
  it('names each server state', () => {
    assert.match(presentStatus('starting').text, /loading~spin/);
    assert.match(presentStatus('ready').tooltip, /ready/);
    assert.match(presentStatus('stopped', 'spawn ENOENT').tooltip, /stopped[\s\S]*spawn ENOENT/);
  });
});

describe('Turn: Generate TypeScript Client', () => {
  const base = { execPath: '/usr/bin/node', electron: false, cliPath: '/ext/dist/cli.js', file: '/w/my agent.tn', outDir: '/w/client' };

  it('runs turn gen ts on the file into the chosen folder, once or watching', () => {
    assert.deepEqual(buildGenInvocation({ ...base, watch: false }).args, ['/ext/dist/cli.js', 'gen', 'ts', '/w/my agent.tn', '--out', '/w/client']);
    assert.deepEqual(buildGenInvocation({ ...base, watch: true }).args.slice(-1), ['--watch']);
    assert.deepEqual(buildGenInvocation({ ...base, watch: false, electron: true }).env, { ELECTRON_RUN_AS_NODE: '1' });
  });

  it('opens the file turn gen ts writes', () => {
    assert.equal(generatedClientPath('/w/my agent.tn', '/w/client/'), '/w/client/my agent.ts');
    assert.equal(generatedClientPath('C:\\w\\triage.tn', 'C:\\out'), 'C:\\out/triage.ts');
  });
});
