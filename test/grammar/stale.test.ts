// Fails when the committed parser (grammar/src/parser.c) is stale relative to grammar.js.
// Needs the tree-sitter CLI; where it is absent (CI installs only npm packages) the check is
// reported as skipped with the reason, and the corpus test still checks the committed wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const grammarDir = path.join(__dirname, '..', '..', 'grammar');
const cli = spawnSync('tree-sitter', ['--version'], { encoding: 'utf8' });
const hasCli = cli.status === 0;

test('committed parser.c matches grammar.js', { skip: hasCli ? false : 'tree-sitter CLI not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-grammar-'));
  try {
    fs.copyFileSync(path.join(grammarDir, 'grammar.js'), path.join(dir, 'grammar.js'));
    fs.copyFileSync(path.join(grammarDir, 'tree-sitter.json'), path.join(dir, 'tree-sitter.json'));
    execFileSync('tree-sitter', ['generate'], { cwd: dir, stdio: 'pipe' });
    const fresh = fs.readFileSync(path.join(dir, 'src', 'parser.c'), 'utf8');
    const committed = fs.readFileSync(path.join(grammarDir, 'src', 'parser.c'), 'utf8');
    assert.ok(fresh === committed, 'grammar/src/parser.c is stale: run `npm run grammar` and commit the result');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the wasm was built by the CLI version recorded beside it', { skip: hasCli ? false : 'tree-sitter CLI not installed' }, () => {
  const recorded = fs.readFileSync(path.join(grammarDir, 'TREE_SITTER_CLI_VERSION'), 'utf8').trim();
  assert.equal(cli.stdout.split(/\s+/)[1], recorded, 'the installed tree-sitter CLI differs from the one that built the grammar');
});

test('the committed wasm exists and is a WebAssembly module', () => {
  const wasm = path.join(grammarDir, 'tree-sitter-turn.wasm');
  assert.ok(fs.existsSync(wasm), 'grammar/tree-sitter-turn.wasm is missing');
  const header = fs.readFileSync(wasm).subarray(0, 4);
  assert.deepEqual([...header], [0x00, 0x61, 0x73, 0x6d], 'not a WebAssembly module');
});
