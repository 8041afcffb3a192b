// Packages the extension: `vsce package` (which runs `vscode:prepublish`, the production build) into
// .e2e/turn-vscode.vsix, then reports the .vsix size and its files (sizes, biggest first).
// The Marketplace page is docs/marketplace.md (packaged as the extension's readme; README.md at the
// root is the developers'), with CHANGELOG.md, LICENSE and the icon; vsce rewrites the page's relative
// links against package.json's repository. No check of vsce is skipped: a missing LICENSE or
// repository fails the packaging, and so does a .vsix without them (checked below).
// Usage: node scripts/package.mjs [--out FILE]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { listVsix, readVsixEntry } from './vsix.mjs';

const README = 'docs/marketplace.md';

const outArg = process.argv.indexOf('--out');
const out = resolve(outArg > 0 ? process.argv[outArg + 1] : '.e2e/turn-vscode.vsix');
mkdirSync(dirname(out), { recursive: true });
const vsce = resolve('node_modules/@vscode/vsce/vsce');
const started = Date.now();
const r = spawnSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--readme-path', README, '--changelog-path', 'CHANGELOG.md', '--out', out],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
if (r.status !== 0) process.exit(r.status ?? 1);

// What the Marketplace shows comes from the .vsix: check it holds the right page, license, changelog and icon.
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const problems = [];
const readme = readVsixEntry(out, 'extension/readme.md')?.toString('utf8') ?? '';
if (readme.split('\n')[0] !== readFileSync(README, 'utf8').split('\n')[0]) problems.push(`the packaged readme is not ${README}`);
for (const m of readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) {
  if (!m[1].startsWith('https://')) problems.push(`image link not rewritten to https: ${m[1]}`);
}
for (const name of ['extension/LICENSE.txt', 'extension/changelog.md', `extension/${manifest.icon}`]) {
  if (!readVsixEntry(out, name)) problems.push(`missing ${name}`);
}
// the bundles that a packaged bundle loads on first use (dist/restate-sdk.js, dist/tokenizer.js:
// scripts/build.mjs) must be packaged beside it
for (const { name } of listVsix(out).filter((e) => /^extension\/dist\/[^/]+\.js$/.test(e.name))) {
  for (const m of (readVsixEntry(out, name)?.toString('utf8') ?? '').matchAll(/\brequire\("\.\/([^"]+)"\)/g)) {
    if (!readVsixEntry(out, `extension/dist/${m[1]}`)) problems.push(`${name} loads ./${m[1]}, which is not packaged`);
  }
}
const vsixManifest = readVsixEntry(out, 'extension.vsixmanifest')?.toString('utf8') ?? '';
for (const asset of ['Content.License', 'Content.Changelog', 'Content.Details', 'Icons.Default']) {
  if (!vsixManifest.includes(`Microsoft.VisualStudio.Services.${asset}`)) problems.push(`extension.vsixmanifest has no ${asset}`);
}
if (problems.length) {
  console.error(`package: the .vsix is not ready for the Marketplace:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const size = statSync(out).size;
const entries = listVsix(out).filter((e) => e.name.startsWith('extension/'));
console.log(`\n.vsix: ${out}`);
console.log(`size: ${(size / 1024 / 1024).toFixed(2)} MiB (${size} bytes), ${entries.length} files, packaged in ${((Date.now() - started) / 1000).toFixed(1)} s`);
for (const e of entries.sort((a, b) => b.size - a.size)) console.log(`  ${String(e.size).padStart(10)}  ${e.name}`);
