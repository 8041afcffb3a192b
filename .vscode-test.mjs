// @vscode/test-electron configuration (through @vscode/test-cli), for contributors whose machines
// can download VS Code: `npm run package && npx vscode-test`. CI cannot download VS Code and runs
// the same checks in code-server instead (test/e2e/, `npm run test:e2e`).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'test/electron/**/*.test.cjs',
  version: 'stable',
  workspaceFolder: './test/e2e/workspace',
  installExtensions: ['./.e2e/turn-vscode.vsix'],
  mocha: { ui: 'tdd', timeout: 60_000 },
  launchArgs: ['--disable-workspace-trust'],
});
