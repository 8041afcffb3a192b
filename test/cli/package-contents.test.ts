// What `npm pack` ships (the package `npm install -g` installs): exactly the allow-list in
// .npmignore, and enough of it that the packed `turn` runs a program on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './run-cli';

interface PackResult {
  filename: string;
  files: { path: string }[];
}

function pack(destination: string): PackResult {
  // --ignore-scripts: `prepare` (the build) already ran in `npm test`; the bundles in dist/ are packed as they are.
  // the timeout only stops a hung npm; a busy machine must never reach it (npm pack takes seconds)
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: ROOT, encoding: 'utf8', timeout: 900_000 });
  assert.equal(r.status, 0, r.signal ? `npm pack was stopped by ${r.signal}` : r.stderr);
  return (JSON.parse(r.stdout) as PackResult[])[0];
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-pack-'));
const packed = pack(tmp);

test('the package holds only the launcher, the CLI bundles, the library, their wasm files and the standard modules', () => {
  const files = packed.files.map((f) => f.path).sort();
  const allowed = [/^bin\/(turn|code-cache)\.js$/, /^dist\/build-id$/, /^dist\/code-cache\/[a-z]+\.bin$/, /^dist\/[a-z-]+\.js$/, /^dist\/turn-lib\.(cjs|mjs)$/, /^dist\/types\/runtime\/[a-z0-9/-]+\.d\.ts$/, /^dist\/[a-z0-9-]+\.wasm$/, /^dist\/grammar\/tree-sitter-turn\.wasm$/, /^dist\/runtime\/std\/[a-z_]+\.tn$/, /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/];
  const stray = files.filter((f) => !allowed.some((re) => re.test(f)));
  assert.deepEqual(stray, [], 'files outside the allow-list');
  for (const needed of ['bin/turn.js', 'dist/cli.js', 'dist/grammar/tree-sitter-turn.wasm', 'dist/runtime/std/json.tn', 'dist/turn-lib.cjs', 'dist/turn-lib.mjs', 'dist/types/runtime/embed/index.d.ts']) assert.ok(files.includes(needed), needed);
  // The editor's bundles belong to the .vsix, not to the command-line package.
  for (const editorOnly of ['dist/extension.js', 'dist/debug-adapter.js']) assert.ok(!files.includes(editorOnly), editorOnly);
});

test('the packed turn runs a program that uses a standard module, from outside the clone', () => {
  const unpacked = path.join(tmp, 'unpacked');
  fs.mkdirSync(unpacked);
  const tar = spawnSync('tar', ['-xzf', path.join(tmp, packed.filename), '-C', unpacked], { encoding: 'utf8' });
  assert.equal(tar.status, 0, tar.stderr);
  // Its run-time dependencies are the clone's (npm would install the same ones).
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(unpacked, 'package', 'node_modules'), 'dir');
  const program = path.join(tmp, 'program.tn');
  fs.writeFileSync(program, 'let json = use "std/json";\ncall("echo", json.pretty({"packed": true}));\n');
  const r = spawnSync(process.execPath, [path.join(unpacked, 'package', 'bin', 'turn.js'), 'run', program], { cwd: tmp, encoding: 'utf8', timeout: 600_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /"packed": true/);
  // OpenTelemetry is a bundle of its own (dist/telemetry.js), loaded only when a run exports traces:
  // the package must hold it, or a traced run of the installed turn fails
  const traced = spawnSync(process.execPath, [path.join(unpacked, 'package', 'bin', 'turn.js'), 'run', program], {
    cwd: tmp, encoding: 'utf8', timeout: 600_000, env: { ...process.env, OTEL_TRACES_EXPORTER: 'console' },
  });
  assert.equal(traced.status, 0, traced.stderr);
  assert.match(traced.stderr, /invoke_agent|gen_ai|turn\.run/);
});
