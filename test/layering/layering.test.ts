// The layering check (.dependency-cruiser.cjs, `npm run deps`): the real tree keeps the rules; a
// tree laid out as intended passes; a tree with one planted violation per rule fails, naming each.
// The fixtures (fixtures/clean, fixtures/planted) are cruised in place with the real config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const FIXTURES = path.join(__dirname, 'fixtures');

/** Runs the check as `npm run deps` does, in `cwd` (whose tsconfig.json is used). */
function depcruise(cwd: string): { code: number | null; out: string } {
  const args = [DEPCRUISE, 'runtime', 'cli', 'language-server', 'extension', '--config', CONFIG, '--ts-config', 'tsconfig.json'];
  const r = spawnSync(process.execPath, [...args, '--output-type', 'err'], { cwd, encoding: 'utf8', timeout: 600_000 });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout + r.stderr };
}

/** The `error RULE: FROM → TO` lines of an `err` report (a cycle's TO is on the following lines). */
function violations(out: string): { rule: string; from: string; to: string }[] {
  return [...out.matchAll(/^\s*error ([\w-]+): (\S+) →[ \t]*(.*)$/gm)].map((m) => ({ rule: m[1], from: m[2], to: m[3].trim() }));
}

test('the real tree keeps the layering rules (npm run deps)', { timeout: 600_000 }, () => {
  const r = depcruise(ROOT);
  assert.equal(r.code, 0, `dependency-cruiser found violations:\n${r.out}`);
  assert.match(r.out, /no dependency violations found/);
});

test('a tree laid out as intended passes', { timeout: 600_000 }, () => {
  const r = depcruise(path.join(FIXTURES, 'clean'));
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /no dependency violations found/);
});

test('planted violations fail the check, each named by its rule', { timeout: 600_000 }, () => {
  const r = depcruise(path.join(FIXTURES, 'planted'));
  // depcruise exits with the number of errors
  assert.notEqual(r.code, 0, r.out);
  const found = violations(r.out);
  const vscodeTypes = /node_modules\/@types\/vscode\/index\.d\.ts$/;
  const expected: [rule: string, from: string, to: string | RegExp][] = [
    ['no-circular', 'runtime/cycle-a.ts', ''],
    ['runtime-not-to-vscode', 'runtime/uses-vscode.ts', vscodeTypes],
    ['runtime-not-to-clients', 'runtime/uses-cli.ts', 'cli/main.ts'],
    ['vscode-only-in-extension', 'language-server/uses-vscode.ts', vscodeTypes],
    ['language-server-not-to-extension-or-cli', 'language-server/uses-extension.ts', 'extension/extension.ts'],
    ['language-server-runtime-through-index', 'language-server/deep.ts', 'runtime/compile/index.ts'],
    ['extension-not-to-language-server-or-cli', 'extension/uses-server.ts', 'language-server/deep.ts'],
    ['extension-runtime-through-index', 'extension/deep.ts', 'runtime/compile/index.ts'],
    ['vm-only-through-run-api', 'runtime/effects/uses-vm.ts', 'runtime/vm/index.ts'],
    ['vm-sees-world-through-ports', 'runtime/vm/index.ts', 'runtime/store/index.ts'],
    ['no-dev-dependencies', 'extension/uses-dev-dependency.ts', /node_modules\/zod\//],
    ['editor-packages-only-in-editor', 'runtime/uses-editor-package.ts', /node_modules\/vscode-languageserver\//],
    ['dev-dependency-types-only', 'extension/value-debugprotocol.ts', /node_modules\/@vscode\/debugprotocol\//],
    ['no-test-code-in-source', 'runtime/uses-test.ts', 'test/helper.ts'],
    ['not-to-unresolvable', 'runtime/unresolvable.ts', './missing.js'],
  ];
  for (const [rule, from, to] of expected) {
    const hit = found.find((v) => v.rule === rule && v.from === from && (typeof to === 'string' ? v.to === to : to.test(v.to)));
    assert.ok(hit, `expected ${rule}: ${from} → ${String(to)} in:\n${r.out}`);
  }
  // the cycle is made of `import type` alone: type-only imports count
  assert.match(r.out, /error no-circular: runtime\/cycle-a\.ts →\s*\n\s*runtime\/cycle-b\.ts →\s*\n\s*runtime\/cycle-a\.ts/);
  // and nothing else fires: each planted file breaks exactly the rule it is named for
  assert.equal(found.length, expected.length, r.out);
  assert.equal(r.code, expected.length, 'the exit code counts the errors');
});
