// Shared by the debug adapter tests: the adapter as its own process (extension/debug/adapter-main.ts
// through tsx, as VS Code would run dist/debug-adapter.js), driven by the DAP test client.
import * as path from 'node:path';
import { after, before } from 'node:test';
import { DebugClient } from '@vscode/debugadapter-testsupport';

export const ROOT = path.resolve(__dirname, '../..');
const ADAPTER = path.join(ROOT, 'extension/debug/adapter-main.ts');
/** test/debug/fixtures */
export const FIX = path.join(__dirname, 'fixtures');

/** Starts the adapter as its own process before the enclosing block's tests and stops it after. */
export function adapterHooks(use: (dc: DebugClient) => void): void {
  let dc: DebugClient;
  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 20_000;
    await dc.start();
    use(dc);
  });
  after(async () => {
    await dc.stop();
  });
}
