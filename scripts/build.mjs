// Bundles the CLI, the language server, the extension, the debug adapter (Node, CommonJS) and the
// run panel's webview script (browser, IIFE) with esbuild. `--production` minifies and drops source
// maps (what `vsce package` ships, through the `vscode:prepublish` script).
// Type-checking is separate (`npm run typecheck`), as esbuild only strips types.
//
// web-tree-sitter is bundled too: its CommonJS build finds web-tree-sitter.wasm in `__dirname`,
// i.e. dist/, and runtime/syntax/parse.ts finds grammar/tree-sitter-turn.wasm in a `grammar/`
// folder above the bundle, i.e. dist/grammar/. Both files are copied there, so dist/ is
// self-contained and the .vsix needs no node_modules.
//
// The durable store's WebAssembly driver (node-sqlite3-wasm, runtime/store/node-sqlite3-wasm.ts) is
// bundled the same way: its loader reads node-sqlite3-wasm.wasm from `__dirname`, i.e. dist/, where
// the file is copied. It is the store of the packaged extension on a Node without node:sqlite.
//
// Two large packages that most runs never use are bundled apart and loaded on first use (issue 17,
// docs/performance.md, *Cold start*): the Restate SDK (used only by a `turn serve` worker, which
// runtime/restate/index.ts imports dynamically) becomes dist/restate-sdk.js and the tokenizer's
// o200k_base encoding (used only when a context budget counts tokens, runtime/context/tokens.ts)
// becomes dist/tokenizer.js. The source imports the packages by name, as under tsx; `lazyBundles`
// rewrites those names, in every Node bundle, to a `require` of the file beside the bundle, which
// runs where the importing module first runs (inside esbuild's lazy wrapper of a dynamic import, or
// inside the function that calls `require`). So the CLI's start-up neither compiles nor runs them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeCodeCaches } from './code-cache.mjs';
import { writeEsmWrapper, writeTypes } from './build-lib.mjs';

const production = process.argv.includes('--production');
// the library's .d.ts types take a tsc pass (seconds, incremental): `--no-types` skips it
const types = !process.argv.includes('--no-types');
const require = createRequire(import.meta.url);

/** Package name → the separate bundle (in dist/) that holds it. */
const LAZY = {
  '@restatedev/restate-sdk': 'restate-sdk.js',
  'gpt-tokenizer/encoding/o200k_base': 'tokenizer.js',
};
// OpenTelemetry export (runtime/telemetry/otel.ts and the @opentelemetry packages it imports) is
// bundled apart the same way, as dist/telemetry.js: runtime/telemetry/index.ts imports './otel.js'
// only when a run exports traces, so a run without telemetry neither compiles nor runs any of it.
const TELEMETRY = { source: 'runtime/telemetry/otel.ts', bundle: 'telemetry.js' };
const lazyBundles = {
  name: 'lazy-bundles',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(LAZY).map((k) => k.replace(/[/.-]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: `./${LAZY[args.path]}`, external: true }));
    b.onResolve({ filter: /^\.\/otel\.js$/ }, (args) =>
      /runtime[\\/]telemetry[\\/]index\.ts$/.test(args.importer) ? { path: `./${TELEMETRY.bundle}`, external: true } : undefined,
    );
  },
};

// Node modules that the language server's libraries require at load but use only for transports
// `turn lsp` does not take (child_process and net for IPC, pipes and sockets; crypto for a pipe's
// random name): each becomes an object that requires the real module on first use, so starting the
// server does not load them (issue 29, docs/performance.md, *Cold start*).
const LAZY_BUILTINS = /^(node:)?(child_process|crypto|net)$/;
const LAZY_BUILTIN_IMPORTERS = /node_modules[\\/]vscode-(languageserver|jsonrpc)[\\/]/;
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: LAZY_BUILTINS }, (args) =>
      LAZY_BUILTIN_IMPORTERS.test(args.importer) ? { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      loader: 'js',
      contents: `let m;
const load = () => (m ??= require('node:${args.path}'));
module.exports = new Proxy({}, {
  get: (_, k) => load()[k],
  has: (_, k) => k in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, k) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), k);
    return d && { ...d, configurable: true };
  },
});`,
    }));
  },
};

// JSON Schema validators (ajv) that Turn's own modules import at load but use only to check a
// model's answer, a tool's structured reply or a script provider's file: each import from Turn's
// source becomes a stand-in that loads the real package on first use (`new`, a call or a property),
// so a run that validates nothing never initialises ajv (a third of the bundle's start-up work
// before a hello run's code; docs/performance.md, *Cold start, third pass*). The stand-in is a
// constructor: `import X from 'ajv'` then `X.default ?? X` (what the importers do) gives the
// stand-in itself, and `new` on it constructs the real class.
const LAZY_CLASSES = /^ajv(\/dist\/2020(\.js)?)?$/;
const lazyClasses = {
  name: 'lazy-classes',
  setup(b) {
    b.onResolve({ filter: LAZY_CLASSES }, (args) => {
      if (args.namespace !== 'file' || /node_modules/.test(args.importer)) return undefined;
      // the stand-in has no named exports: `import { X } from 'ajv'` would give undefined
      const named = new RegExp(`import\\s*(\\w+\\s*,\\s*)?\\{[^}]*\\}\\s*from\\s*['"]${args.path.replace(/[/.]/g, '\\$&')}['"]`);
      if (named.test(readFileSync(args.importer, 'utf8'))) {
        return { errors: [{ text: `${args.importer}: import ${args.path} as a default import (scripts/build.mjs loads it on first use, through a stand-in without named exports)` }] };
      }
      return { path: args.path, namespace: 'lazy-class' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-class' }, (args) => ({
      loader: 'js',
      resolveDir: process.cwd(),
      // each package loaded is listed under Symbol.for('turn.lazyLoaded') (test/cli/coldstart.test.ts)
      contents: `let m;
const real = () => {
  if (!m) {
    m = require(${JSON.stringify(args.path)});
    (globalThis[Symbol.for('turn.lazyLoaded')] ??= []).push(${JSON.stringify(args.path)});
  }
  return m.default ?? m;
};
const target = function () {};
const lazy = new Proxy(target, {
  construct: (_, argv) => Reflect.construct(real(), argv),
  apply: (_, self, argv) => Reflect.apply(real(), self, argv),
  get: (_, k) => (k === 'default' ? lazy : k === '__esModule' ? undefined : real()[k]),
  has: (_, k) => k === 'default' || k in real(),
});
module.exports = lazy;`,
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  keepNames: true,
  logLevel: 'warning',
  // A dynamic import() of a package or builtin becomes a require(): the CLI runs from a V8 code
  // cache through vm.Script (bin/turn.js), where a real import() has no module loader to call.
  supported: { 'dynamic-import': false },
  // better-sqlite3 is a native addon (the CLI's store driver on Node 20); inside VS Code the store
  // uses node:sqlite or the bundled node-sqlite3-wasm instead, so the addon is never loaded there.
  external: ['vscode', 'better-sqlite3', 'node-llama-cpp'],
  // the CommonJS build of web-tree-sitter (its ESM build needs import.meta.url, which a CJS bundle lacks)
  alias: { 'web-tree-sitter': require.resolve('web-tree-sitter') },
};

mkdirSync('dist/grammar', { recursive: true });
copyFileSync(join(dirname(require.resolve('web-tree-sitter')), 'web-tree-sitter.wasm'), 'dist/web-tree-sitter.wasm');
copyFileSync('grammar/tree-sitter-turn.wasm', 'dist/grammar/tree-sitter-turn.wasm');
copyFileSync(require.resolve('node-sqlite3-wasm/dist/node-sqlite3-wasm.wasm'), 'dist/node-sqlite3-wasm.wasm');
// the Turn activity-bar container's icon (the Runs view)
copyFileSync('extension/runs/turn.svg', 'dist/turn-activity.svg');
// The standard library (`use "std/net"`) is found in a `runtime/std/` folder above the bundle.
mkdirSync('dist/runtime/std', { recursive: true });
for (const name of readdirSync('runtime/std')) if (name.endsWith('.tn')) copyFileSync(`runtime/std/${name}`, `dist/runtime/std/${name}`);

await Promise.all([
  // The CLI is minified in every build (its source map kept): `turn` reads and V8 deserializes
  // this file at each start, and 2 MB cost less than 4.4 (docs/performance.md, *Cold start*).
  // better-sqlite3's JavaScript is bundled into the CLI (compiled from its code cache with the rest,
  // not from a dozen files in node_modules at a durable run's start); its native module stays in
  // node_modules, where runtime/store/better-sqlite3.ts finds it and hands it over (`nativeBinding`).
  build({ ...common, external: common.external.filter((e) => e !== 'better-sqlite3'), minify: true, plugins: [lazyBundles, lazyBuiltins, lazyClasses], entryPoints: ['cli/main.ts'], outfile: 'dist/cli.js' }),
  build({ ...common, plugins: [lazyBundles, lazyBuiltins], entryPoints: ['language-server/server.ts'], outfile: 'dist/server.js' }),
  build({ ...common, plugins: [lazyBundles], entryPoints: ['extension/extension.ts'], outfile: 'dist/extension.js' }),
  // the runtime as a library (docs/embedding.md, scripts/build-lib.mjs): package.json `exports`
  build({ ...common, plugins: [lazyBundles, lazyClasses], entryPoints: ['runtime/embed/index.ts'], outfile: 'dist/turn-lib.cjs' }),
  ...(types ? [writeTypes()] : []),
  build({ ...common, plugins: [lazyBundles], entryPoints: ['extension/debug/adapter-main.ts'], outfile: 'dist/debug-adapter.js' }),
  // third-party code, minified even in development: half the size to parse when it does load
  ...Object.entries(LAZY).map(([pkg, file]) => build({ ...common, minify: true, entryPoints: [require.resolve(pkg)], outfile: `dist/${file}` })),
  build({ ...common, minify: true, entryPoints: [TELEMETRY.source], outfile: `dist/${TELEMETRY.bundle}` }),
  build({
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    external: [],
    entryPoints: ['extension/panel/webview/main.ts'],
    outfile: 'dist/webview/panel.js',
  }),
  // the answer webview: a question a person answers through a typed form (extension/forms/)
  build({ ...common, platform: 'browser', target: 'es2022', format: 'iife', external: [], entryPoints: ['extension/forms/webview/answer-main.ts'], outfile: 'dist/webview/answer.js' }),
  // the playground's webview (docs/editor.md, Playground)
  build({ ...common, platform: 'browser', target: 'es2022', format: 'iife', external: [], entryPoints: ['extension/playground/webview/main.ts'], outfile: 'dist/webview/playground.js' }),
]);
copyFileSync('extension/panel/webview/panel.css', 'dist/webview/panel.css');
copyFileSync('extension/playground/webview/playground.css', 'dist/webview/playground.css');
writeEsmWrapper();
// bin/code-cache.js reads an ASCII bundle as latin1, three times faster than UTF-8 decoding; esbuild
// escapes non-ASCII in strings but not in regular expression literals, so one there is said here
if (!isAscii(readFileSync('dist/cli.js'))) process.stderr.write('build: dist/cli.js is not ASCII (a non-ASCII character in a regular expression literal? write it as \\uXXXX); `turn` starts slower\n');
// the CLI's V8 code caches, tagged with the bundle's hash (bin/code-cache.js); a failure here only
// means the first run of each command writes its own cache into the user's cache folder
try {
  await writeCodeCaches();
} catch (e) {
  process.stderr.write(`build: no code cache written (${e instanceof Error ? e.message : String(e)}); the CLI writes one on first use\n`);
}
