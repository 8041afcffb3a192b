// Runs every `*.test.ts` under test/ (or under the folders given) with node's built-in test runner.
// Node 20's `--test` does not expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'fixtures' && name !== 'e2e') collect(full, out);
    } else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ['test']).flatMap((r) => (statSync(r).isDirectory() ? collect(r, []) : [r]));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
