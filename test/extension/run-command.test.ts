import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildRunInvocation, describeInvocation } from '../../extension/run-command.js';
import { presentStatus } from '../../extension/status-model.js';

describe('buildRunInvocation', () => {
  const base = { execPath: '/usr/bin/node', electron: false, cliPath: '/ext/dist/cli.js', file: '/w/my prog.tn' };

  it('runs the bundled CLI with the mock model by default', () => {
    assert.deepEqual(buildRunInvocation(base), {
      command: '/usr/bin/node',
      args: ['/ext/dist/cli.js', 'run', '/w/my prog.tn', '--model', 'mock'],
      env: {},
    });
    assert.deepEqual(buildRunInvocation({ ...base, model: '  ' }).args.slice(-1), ['mock']);
  });

  it('passes the configured model and runs Electron as Node', () => {
    const inv = buildRunInvocation({ ...base, electron: true, execPath: '/opt/Code/code', model: 'script:fixtures/a.json' });
    assert.deepEqual(inv.args.slice(-2), ['--model', 'script:fixtures/a.json']);
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
