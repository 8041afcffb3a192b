// Layering rules for Turn, checked by dependency-cruiser (`npm run deps`, part of `npm test`).
// The layers, bottom to top:
//   runtime/        the library: compiler, VM, actor runtime; public entry runtime/index.ts
//     runtime/vm/     the VM; sees the world only through runtime/ports/
//     runtime/run/    the run API, the one way to use the VM from outside it
//   cli/            the `turn` command, a client of the library
//   language-server/ the LSP server, a separate process, a client of the library
//   extension/      the VS Code extension; the only code that may import `vscode`
// test/ and bench/ may import anything: no rule has them as `from`, and they are not cruised.
// Paths are relative to the folder depcruise runs in (the repository root; the layering test runs
// it in a fixture folder laid out the same way), hence the `^` anchors.

/** Source folders the rules apply to. */
const SOURCE = '^(runtime|cli|language-server|extension)/';

/** `vscode` as a module: resolved to its types package in the repository, or unresolved. */
const VSCODE = '^vscode$|(^|/)node_modules/@types/vscode/';

/** Dev dependencies that source may import for their types only. */
// Optional peer dependencies: native or large packages the library loads on first use, behind a guard
// that turns their absence into a clear message (runtime/store/better-sqlite3.ts; the in-process model
// provider for node-llama-cpp). They are devDependencies here so the tests and benchmarks have them, and
// `peerDependenciesMeta.optional` in package.json so `npm install -g` of the package never compiles them.
const OPTIONAL_PEERS = '(^|/)node_modules/(better-sqlite3|node-llama-cpp|@node-llama-cpp)/';
const TYPES_ONLY_DEV = '(^|/)node_modules/(@types/|@vscode/debugprotocol/)';
// The editor's libraries (LSP client and server, the debug adapter): devDependencies because esbuild
// bundles them into dist/extension.js, dist/server.js and dist/debug-adapter.js, which need no
// node_modules (the .vsix is packaged with --no-dependencies), so an app that installs the package as
// a library (docs/embedding.md) does not pull them. Only the editor's code may import them.
const EDITOR_BUNDLED = '(^|/)node_modules/(vscode-languageclient|vscode-languageserver|vscode-languageserver-textdocument|vscode-languageserver-protocol|vscode-languageserver-types|vscode-jsonrpc|@vscode/debugadapter)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Cycles make modules impossible to understand, test or load one at a time, and give ' +
        'ESM import-order bugs (a binding read before its module ran). Type-only imports count: ' +
        'they are real coupling, and a type cycle is a value cycle waiting to happen.',
      from: { path: SOURCE },
      to: { circular: true },
    },
    {
      name: 'runtime-not-to-vscode',
      severity: 'error',
      comment:
        'runtime/ is a plain Node library (used by the CLI, the language server and tests): ' +
        'the vscode module only exists inside the extension host.',
      from: { path: '^runtime/' },
      to: { path: VSCODE },
    },
    {
      name: 'runtime-not-to-clients',
      severity: 'error',
      comment:
        'runtime/ is the bottom layer: extension/, language-server/ and cli/ are its clients, ' +
        'so it may not depend on them (that would also be a cycle in the making).',
      from: { path: '^runtime/' },
      to: { path: '^(extension|language-server|cli)/' },
    },
    {
      name: 'vscode-only-in-extension',
      severity: 'error',
      comment:
        'cli/ and language-server/ run as plain Node processes, where there is no vscode module: ' +
        'importing it would crash them at load time.',
      from: { path: '^(cli|language-server)/' },
      to: { path: VSCODE },
    },
    {
      name: 'language-server-not-to-extension-or-cli',
      severity: 'error',
      comment:
        'The language server is a separate process started by the extension (and by `turn lsp`): ' +
        'it is their dependency, not the other way round.',
      from: { path: '^language-server/' },
      to: { path: '^(extension|cli)/' },
    },
    {
      name: 'language-server-runtime-through-index',
      severity: 'error',
      comment:
        'Clients use the library only through its public entry runtime/index.ts, so that ' +
        'runtime/ can reorganise its inside without breaking them.',
      from: { path: '^language-server/' },
      to: { path: '^runtime/', pathNot: '^runtime/index\\.ts$' },
    },
    {
      name: 'extension-not-to-language-server-or-cli',
      severity: 'error',
      comment:
        'The extension starts the language server bundle (and the CLI) as separate processes; ' +
        'importing their code would bundle a second copy into the extension host.',
      from: { path: '^extension/' },
      to: { path: '^(language-server|cli)/' },
    },
    {
      name: 'extension-runtime-through-index',
      severity: 'error',
      comment:
        'Clients use the library only through its public entry runtime/index.ts, so that ' +
        'runtime/ can reorganise its inside without breaking them.',
      from: { path: '^extension/' },
      to: { path: '^runtime/', pathNot: '^runtime/index\\.ts$' },
    },
    {
      name: 'vm-only-through-run-api',
      severity: 'error',
      comment:
        'The VM is used through the run API (runtime/run/), which durability (runtime/durable/) ' +
        'and the public entry build on; everything else goes through them, so the VM can change ' +
        'without its users changing. cli/ is held to this too: it is a client like the others.',
      from: {
        path: SOURCE,
        pathNot: '^runtime/(vm|run|durable)/|^runtime/index\\.ts$',
      },
      to: { path: '^runtime/vm/' },
    },
    {
      name: 'vm-sees-world-through-ports',
      severity: 'error',
      comment:
        'The VM sees the world only through its ports (runtime/ports/: Host, durability hooks, ' +
        'debug hook); the adapters that implement them (effects, store, durable) and the run API ' +
        'built on the VM sit above it. Importing them would invert the layers. One exception: the ' +
        "standard library's tool catalogue (runtime/effects/tools.ts) is data the VM dispatches " +
        '`call(...)` on (pure tools run inline, effect tools become a Host request).',
      from: { path: '^runtime/vm/' },
      to: { path: '^runtime/(durable|run|effects|store)/', pathNot: '^runtime/effects/tools\\.ts$' },
    },
    {
      name: 'no-dev-dependencies',
      severity: 'error',
      comment:
        'Shipped code (the library, the CLI, the bundles) may not need a devDependency at run ' +
        'time: `npm install --omit=dev` would break it. Only type packages (see next rule) and the optional ' +
        'peers loaded behind a guard (OPTIONAL_PEERS) are exempt.',
      from: { path: SOURCE },
      to: { dependencyTypes: ['npm-dev'], pathNot: [TYPES_ONLY_DEV, OPTIONAL_PEERS, EDITOR_BUNDLED] },
    },
    {
      name: 'editor-packages-only-in-editor',
      severity: 'error',
      comment:
        'The editor\'s libraries are devDependencies, bundled into the editor\'s bundles only ' +
        '(EDITOR_BUNDLED): the runtime and the CLI, which an app installs as a library, may not need them.',
      from: { path: '^(runtime|cli)/' },
      to: { path: EDITOR_BUNDLED },
    },
    {
      name: 'dev-dependency-types-only',
      severity: 'error',
      comment:
        '@types/* and @vscode/debugprotocol are devDependencies that have no run-time code: they ' +
        'may be imported with `import type` only. `vscode` itself (whose types are @types/vscode) ' +
        'is given by the extension host, so extension/ may import it as a value.',
      from: { path: SOURCE },
      to: {
        dependencyTypes: ['npm-dev'],
        dependencyTypesNot: ['type-only'],
        path: TYPES_ONLY_DEV,
        pathNot: VSCODE,
      },
    },
    {
      name: 'no-test-code-in-source',
      severity: 'error',
      comment: 'test/ and bench/ may import anything, but nothing shipped may import them.',
      from: { path: SOURCE },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'An import that cannot be resolved cannot be checked by the rules above (and will fail ' +
        'at run time or in the bundle).',
      from: { path: SOURCE },
      to: { couldNotResolve: true, pathNot: '^vscode$' },
    },
  ],
  options: {
    // Do not descend into packages; their own imports are not ours to check.
    doNotFollow: { path: '(^|/)node_modules/' },
    // Build output is not source. (node_modules must not be excluded: the rules on packages
    // need to see the imports of them.)
    exclude: { path: '^(dist|grammar/src)/' },
    // See `import type` and type-only re-exports too (they vanish in the compiled JS).
    tsPreCompilationDeps: true,
    // Resolve like tsc does (NodeNext: `./x.js` means `./x.ts`).
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    // The whole check takes a few seconds: no cache to go stale.
    cache: false,
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
