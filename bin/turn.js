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
const argv = process.argv.slice(2);
require('./code-cache.js').loadCached(cli, argv[0]).runAsProcess(argv);
