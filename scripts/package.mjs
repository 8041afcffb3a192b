// Packages the extension: `vsce package` (which runs `vscode:prepublish`, the production build) into
// .e2e/turn-vscode.vsix, then reports the .vsix size and its files (sizes, biggest first).
// Usage: node scripts/package.mjs [--out FILE]
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { listVsix } from './vsix.mjs';

const outArg = process.argv.indexOf('--out');
const out = resolve(outArg > 0 ? process.argv[outArg + 1] : '.e2e/turn-vscode.vsix');
mkdirSync(dirname(out), { recursive: true });
const vsce = resolve('node_modules/@vscode/vsce/vsce');
const started = Date.now();
const r = spawnSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--readme-path', 'extension/README.md', '--out', out],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
if (r.status !== 0) process.exit(r.status ?? 1);
const size = statSync(out).size;
const entries = listVsix(out).filter((e) => e.name.startsWith('extension/'));
console.log(`\n.vsix: ${out}`);
console.log(`size: ${(size / 1024 / 1024).toFixed(2)} MiB (${size} bytes), ${entries.length} files, packaged in ${((Date.now() - started) / 1000).toFixed(1)} s`);
for (const e of entries.sort((a, b) => b.size - a.size)) console.log(`  ${String(e.size).padStart(10)}  ${e.name}`);
