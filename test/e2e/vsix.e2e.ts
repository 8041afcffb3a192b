// The packaged .vsix holds exactly what the extension needs at run time and what the Marketplace
// shows: the files .vscodeignore whitelists, each of them present, and nothing else (no sources,
// maps, tests or node_modules); its readme is the Marketplace page (docs/marketplace.md) with links
// vsce made absolute, and its manifest names the license, icon and repository.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs helper without types
import { listVsix, readVsixEntry } from '../../scripts/vsix.mjs';
import { ROOT, VSIX } from './harness.js';

const REQUIRED = [
  'extension/package.json',
  'extension/readme.md',
  'extension/dist/extension.js',
  'extension/dist/server.js',
  'extension/dist/cli.js',
  'extension/dist/webview/panel.js',
  'extension/dist/webview/panel.css',
  'extension/dist/webview/answer.js',
  'extension/dist/web-tree-sitter.wasm',
  'extension/dist/grammar/tree-sitter-turn.wasm',
  'extension/dist/runtime/std/net.tn',
  'extension/syntaxes/turn.tmLanguage.json',
  'extension/syntaxes/language-configuration.json',
  'extension/LICENSE.txt',
  'extension/changelog.md',
  'extension/docs/images/icon.png',
];
// vsce's own manifest files
const VSCE = ['[Content_Types].xml', 'extension.vsixmanifest'];

function whitelisted(name: string, patterns: RegExp[]): boolean {
  return patterns.some((p) => p.test(name));
}

test('the .vsix contains what the extension needs and nothing else', () => {
  const entries = (listVsix(VSIX) as { name: string; size: number }[]).map((e) => e.name);
  for (const r of REQUIRED) assert.ok(entries.includes(r), `missing ${r}`);
  const patterns = readFileSync(join(ROOT, '.vscodeignore'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((glob) => glob.slice(1).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\0').replace(/\*/g, '[^/]*').replace(/\0/g, '.*'))
    .map((re) => new RegExp(`^extension/${re}$`, 'i'));
  // vsce adds the readme it is given (--readme-path) as readme.md, and renames LICENSE and CHANGELOG.md
  patterns.push(/^extension\/readme\.md$/, /^extension\/LICENSE\.txt$/, /^extension\/changelog\.md$/);
  const extra = entries.filter((e) => !VSCE.includes(e) && !whitelisted(e, patterns));
  assert.deepEqual(extra, [], 'files outside the .vscodeignore whitelist');
  assert.ok(!entries.some((e) => /\.map$|\.ts$|node_modules|\/test\//.test(e)), 'no maps, sources, tests or node_modules');
  const size = statSync(VSIX).size;
  console.log(`.vsix size: ${(size / 1024 / 1024).toFixed(2)} MiB (${size} bytes), ${entries.length} entries`);
  assert.ok(size < 8 * 1024 * 1024, 'the .vsix stays under 8 MiB');
});

test('the .vsix carries the Marketplace page, license, changelog, icon and repository', () => {
  const text = (name: string) => (readVsixEntry(VSIX, name) as Buffer | undefined)?.toString('utf8') ?? '';
  const page = readFileSync(join(ROOT, 'docs/marketplace.md'), 'utf8');
  const readme = text('extension/readme.md');
  assert.equal(readme.split('\n')[0], page.split('\n')[0], 'the readme is docs/marketplace.md');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
  assert.ok(images.length > 0, 'the page shows images');
  for (const src of images) assert.ok(src.startsWith(`${pkg.repository.url}/raw/HEAD/docs/images/`), `image link rewritten from the repository root: ${src}`);
  assert.match(text('extension/LICENSE.txt'), /^MIT License/);
  assert.ok(text('extension/changelog.md').includes(`## [${pkg.version}]`));
  const manifest = text('extension.vsixmanifest');
  assert.ok(manifest.includes('<License>extension/LICENSE.txt</License>'), 'the manifest names the license');
  assert.ok(manifest.includes(`<Icon>extension/${pkg.icon}</Icon>`), 'the manifest names the icon');
  assert.ok(manifest.includes(pkg.repository.url), 'the manifest links the repository');
  const packaged = JSON.parse(text('extension/package.json'));
  for (const key of ['icon', 'repository', 'homepage', 'bugs', 'license']) assert.deepEqual(packaged[key], pkg[key], key);
});
