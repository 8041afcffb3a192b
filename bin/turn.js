#!/usr/bin/env node
// The `turn` command: a thin launcher for the bundled CLI (built by `npm run build`).
//
// Start-up (issue 29, docs/performance.md, *Cold start*): compiling the 3.5 MB dist/cli.js was 42%
// of an empty run, so the bundle is compiled from a V8 code cache (bin/code-cache.js): the first run
// of a command writes the functions it compiled, later runs start from them.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('turn: the CLI is not built yet; run `npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(70);
}
// V8 flags are part of what a code cache is checked against: the CLI sets this one when it loads the
// grammar (runtime/syntax/wasm-tiering.ts says why), so it is set here, before the cache is read,
// or every cache written at exit (flag set) would be rejected at the next start (flag not yet set).
require('node:v8').setFlagsFromString('--wasm-tiering-budget=2000000000');
const argv = process.argv.slice(2);
require('./code-cache.js').loadCached(cli, argv[0]).runAsProcess(argv);
