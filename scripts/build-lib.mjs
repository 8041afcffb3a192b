// The runtime as a library (docs/embedding.md): what package.json's `exports` point at.
//
//   dist/turn-lib.cjs   the CommonJS bundle of runtime/embed/index.ts (esbuild, with the CLI's
//                       plugins: it finds the wasm files, the standard modules and the lazily
//                       loaded bundles in dist/ exactly as the CLI does, and needs no node_modules)
//   dist/turn-lib.mjs   the ESM entry: a wrapper that loads the CommonJS bundle and re-exports its
//                       names, so an app that both imports and requires Turn holds one runtime
//                       (one store lock, one class identity for `instanceof TurnError`)
//   dist/types/         the .d.ts declarations: `tsc -p tsconfig.lib.json` (incremental, into
//                       dist/.types-build/), then only the files the entry's declarations reach
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const TYPES_BUILD = 'dist/.types-build';
const TYPES = 'dist/types';
const TYPES_ENTRY = 'runtime/embed/index.d.ts';

/** The ESM wrapper of the CommonJS bundle, naming every export it has. */
export function writeEsmWrapper() {
  const require = createRequire(import.meta.url);
  const lib = require(resolve('dist/turn-lib.cjs'));
  const names = Object.keys(lib).filter((n) => n !== 'default' && n !== '__esModule' && /^[A-Za-z_$][\w$]*$/.test(n)).sort();
  writeFileSync(
    'dist/turn-lib.mjs',
    `// The ESM entry of the Turn library (scripts/build-lib.mjs): the CommonJS bundle, re-exported by name.\n` +
      `import { createRequire } from 'node:module';\n` +
      `const lib = createRequire(import.meta.url)('./turn-lib.cjs');\n` +
      `export const { ${names.join(', ')} } = lib;\n` +
      `export default lib;\n`,
  );
}

function tsc() {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.lib.json'], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`tsc -p tsconfig.lib.json exited with ${code}`))));
  });
}

/** Relative module specifiers of a declaration file (`from './x.js'`, `import('./x.js')`). */
function relativeImports(text) {
  const out = [];
  for (const m of text.matchAll(/(?:from\s+|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) out.push(m[1]);
  return out;
}

/** Emits the declarations and copies into dist/types/ the ones reachable from the entry's. */
export async function writeTypes() {
  await tsc();
  rmSync(TYPES, { recursive: true, force: true });
  const seen = new Set();
  const work = [TYPES_ENTRY];
  while (work.length > 0) {
    const file = work.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const from = join(TYPES_BUILD, file);
    if (!existsSync(from)) throw new Error(`build: ${from} is missing (tsc did not emit it)`);
    const text = readFileSync(from, 'utf8');
    mkdirSync(dirname(join(TYPES, file)), { recursive: true });
    copyFileSync(from, join(TYPES, file));
    for (const spec of relativeImports(text)) {
      const target = relative(TYPES_BUILD, resolve(dirname(from), spec.replace(/\.js$/, '.d.ts')));
      work.push(target);
    }
  }
  return seen.size;
}
