// The package as an app installs it (docs/embedding.md): `npm pack`, then `npm install` of the tarball
// into a fresh folder (from the local npm cache where it can), then an ESM and a CommonJS script import
// it and run a program with the mock model, and a TypeScript file type-checks against its .d.ts.
// Needs `npm run build` (the bundles and types in dist/ are packed as they are).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-embed-pack-'));
const app = path.join(tmp, 'app');

function sh(cmd: string, args: string[], cwd: string): string {
  // the timeout only stops a hung npm; npm pack and install take seconds
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 900_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.signal ?? ''}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// a program that asks the model and prints; the app reads the value, its confidence and the printed line
const PROGRAM = 'call("echo", "asked");\nlet sky = infer Bool { "Is the sky blue?"; };\nreturn {"sky": sky, "n": 2};\n';

const ESM = `import { run, TurnError, openStore } from 'turn-vscode';
const lines = [];
const r = await run('program.tn', { model: 'mock', onOutput: (l) => lines.push(l) });
let refused = '';
try { await run('missing.tn'); } catch (e) { refused = e instanceof TurnError ? e.kind : 'other'; }
console.log(JSON.stringify({ status: r.status, value: r.value, confidence: r.confidence, calls: r.usage.modelCalls, lines, refused, store: typeof openStore }));
`;

const CJS = `const { run, TurnError } = require('turn-vscode');
run('program.tn', { model: 'mock' }).then(async (r) => {
  let refused = '';
  try { await run('missing.tn'); } catch (e) { refused = e instanceof TurnError ? e.kind : 'other'; }
  console.log(JSON.stringify({ status: r.status, value: r.value, confidence: r.confidence, calls: r.usage.modelCalls, refused }));
});
`;

// typed use from both module systems; the wrong field access below must fail to compile
const TYPED_ESM = `import { run, type TurnResult } from 'turn-vscode';
const r: TurnResult = await run('program.tn', { model: 'mock', grants: { net: ['api.example.com'] }, budgets: { modelCalls: 3 } });
if (r.status === 'done') { const c: number = r.confidence; console.log(c); }
`;
const TYPED_CJS = `import turn = require('turn-vscode');
void turn.run('program.tn').then((r) => { if (r.status === 'failed') console.log(r.error.line); });
`;
const WRONG = `import { run } from 'turn-vscode';
const r = await run('program.tn');
if (r.status === 'failed') console.log(r.confidence);
`;

test('the packed tarball installs into a fresh app, without an editor package, and both module systems run a program', { timeout: 900_000 }, () => {
  const packed = JSON.parse(sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT)) as { filename: string }[];
  const tarball = path.join(tmp, packed[0].filename);
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], app);
  const installed = fs.readdirSync(path.join(app, 'node_modules'));
  assert.ok(installed.includes('turn-vscode'));
  for (const editorOnly of ['vscode-languageclient', 'vscode-languageserver', 'vscode-languageserver-textdocument', 'vscode-jsonrpc']) {
    assert.ok(!installed.includes(editorOnly), `${editorOnly} was installed`);
  }
  assert.ok(!fs.existsSync(path.join(app, 'node_modules', '@vscode', 'debugadapter')), '@vscode/debugadapter was installed');

  fs.writeFileSync(path.join(app, 'program.tn'), PROGRAM);
  fs.writeFileSync(path.join(app, 'esm.mjs'), ESM);
  fs.writeFileSync(path.join(app, 'cjs.cjs'), CJS);
  const esm = JSON.parse(sh(process.execPath, ['esm.mjs'], app)) as Record<string, unknown>;
  assert.deepEqual(esm, { status: 'done', value: { sky: true, n: 2 }, confidence: 1, calls: 1, lines: ['asked'], refused: 'input', store: 'function' });
  const cjs = JSON.parse(sh(process.execPath, ['cjs.cjs'], app)) as Record<string, unknown>;
  assert.deepEqual(cjs, { status: 'done', value: { sky: true, n: 2 }, confidence: 1, calls: 1, refused: 'input' });

  // the .d.ts types: an app's strict tsc (with @types/node, as any Node app has) accepts typed use from ESM and CommonJS...
  fs.writeFileSync(path.join(app, 'typed.mts'), TYPED_ESM);
  fs.writeFileSync(path.join(app, 'typed.cts'), TYPED_CJS);
  fs.writeFileSync(path.join(app, 'wrong.mts'), WRONG);
  const tsconfig = (files: string[]) => ({
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
    files,
  });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig(['typed.mts', 'typed.cts'])));
  sh(process.execPath, [tsc, '-p', '.'], app);
  // ...and refuses a field a failed result does not have
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig(['wrong.mts'])));
  const wrong = spawnSync(process.execPath, [tsc, '-p', '.'], { cwd: app, encoding: 'utf8', timeout: 600_000 });
  assert.equal(wrong.status, 2, wrong.stdout);
  assert.match(wrong.stdout, /wrong\.mts\(3,\d+\): error TS2339: Property 'confidence' does not exist on type/);
});
