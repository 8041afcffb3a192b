// The packaged .vsix holds exactly what the extension needs at run time: the files .vscodeignore
// whitelists, each of them present, and nothing else (no sources, maps, tests or node_modules).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs helper without types
import { listVsix } from '../../scripts/vsix.mjs';
import { ROOT, VSIX } from './harness.js';

const REQUIRED = [
  'extension/package.json',
  'extension/readme.md',
  'extension/dist/extension.js',
  'extension/dist/server.js',
  'extension/dist/cli.js',
  'extension/dist/webview/panel.js',
  'extension/dist/webview/panel.css',
  'extension/dist/web-tree-sitter.wasm',
  'extension/dist/grammar/tree-sitter-turn.wasm',
  'extension/dist/runtime/std/net.tn',
  'extension/syntaxes/turn.tmLanguage.json',
  'extension/syntaxes/language-configuration.json',
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
  patterns.push(/^extension\/readme\.md$/);
  const extra = entries.filter((e) => !VSCE.includes(e) && !whitelisted(e, patterns));
  assert.deepEqual(extra, [], 'files outside the .vscodeignore whitelist');
  assert.ok(!entries.some((e) => /\.map$|\.ts$|node_modules|\/test\//.test(e)), 'no maps, sources, tests or node_modules');
  const size = statSync(VSIX).size;
  console.log(`.vsix size: ${(size / 1024 / 1024).toFixed(2)} MiB (${size} bytes), ${entries.length} entries`);
  assert.ok(size < 8 * 1024 * 1024, 'the .vsix stays under 8 MiB');
});
