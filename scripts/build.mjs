// Bundles the CLI, the language server and the extension with esbuild.
// Type-checking is separate (`npm run typecheck`), as esbuild only strips types.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // web-tree-sitter locates its own .wasm next to its module file, so it stays a runtime dependency.
  external: ['vscode', 'web-tree-sitter'],
};

await Promise.all([
  build({ ...common, entryPoints: ['runtime/cli/main.ts'], outfile: 'dist/cli.js' }),
  build({ ...common, entryPoints: ['language-server/server.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['extension/extension.ts'], outfile: 'dist/extension.js' }),
]);
