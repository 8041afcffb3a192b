#!/usr/bin/env node
// The `turn` command: a thin launcher for the bundled CLI (built by `npm run build`).
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('turn: the CLI is not built yet; run `npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(70);
}
require(cli).runAsProcess(process.argv.slice(2));
