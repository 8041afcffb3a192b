// The end-to-end suite (test/e2e/*.e2e.ts): packages the .vsix (scripts/package.mjs), then runs
// the tests, which install it into code-server and drive it with chromium.
//   node scripts/e2e.mjs               always runs (fails when code-server is not provisioned)
//   node scripts/e2e.mjs --if-enabled  runs only when TURN_E2E=1 (how `npm test` calls it; CI sets it)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

if (process.argv.includes('--if-enabled') && process.env.TURN_E2E !== '1') {
  console.log('e2e: skipped (set TURN_E2E=1 to run the code-server suite; provision with scripts/provision-e2e.sh)');
  process.exit(0);
}
// the version test/e2e/harness.ts runs (TURN_CODE_SERVER_VERSION, else the pinned one), in its own folder
const codeServer = process.env.TURN_CODE_SERVER_VERSION ?? readFileSync('test/e2e/code-server-version.txt', 'utf8').trim();
if (!existsSync(`.e2e/code-server-${codeServer}/node_modules/.bin/code-server`)) {
  console.error(`e2e: code-server ${codeServer} is not provisioned; run \`bash scripts/provision-e2e.sh\` first`);
  process.exit(1);
}
const started = Date.now();
const step = (what, cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`e2e: ${what} failed`);
    process.exit(r.status ?? 1);
  }
};
step('packaging', process.execPath, ['scripts/package.mjs']);
const files = readdirSync('test/e2e').filter((f) => f.endsWith('.e2e.ts')).sort().map((f) => `test/e2e/${f}`);
const suite = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files], { stdio: 'inherit' });
// The production build replaced dist/; restore the development bundles (with source maps), pass or fail.
step('rebuilding dist/', process.execPath, ['scripts/build.mjs']);
if (suite.status !== 0) {
  console.error(`e2e: the suite failed after ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots (failed-*.png) in test/e2e/artifacts/`);
  process.exit(suite.status ?? 1);
}
console.log(`e2e: passed in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in test/e2e/artifacts/`);
