// The tree-sitter queries other editors use (grammar/queries/**/*.scm), checked through
// web-tree-sitter against the committed grammar/tree-sitter-turn.wasm, without the tree-sitter CLI:
//   - every query compiles against the grammar (no unknown node type, field or syntax error);
//   - every capture name is one the query's kind allows (test/grammar/capture-names.ts), and only
//     predicates every editor understands are used;
//   - the highlights of fixtures/highlights.tn are exactly fixtures/highlights.expected;
//   - queries/helix/highlights.scm is queries/highlights.scm with Helix's names;
//   - grammar/tree-sitter.json has what the CLI, Neovim, Helix and Zed read;
//   - where the tree-sitter CLI is installed (not in CI), `tree-sitter test` reads tree-sitter.json
//     and its own highlighter agrees with fixtures/highlights.expected.
// After a deliberate change of highlights.scm or of the sample, regenerate the two derived files
// and review their diff:  UPDATE_HIGHLIGHTS=1 node --import tsx --test test/grammar/queries.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Query, type Language, type Tree } from 'web-tree-sitter';
import { createParser, loadTurnLanguage } from '../../runtime/syntax/parse.js';
import { PORTABLE_PREDICATES, allowedCaptures, helixName } from './capture-names.js';

const root = path.join(__dirname, '..', '..');
const grammarDir = path.join(root, 'grammar');
const queriesDir = path.join(grammarDir, 'queries');
const fixtures = path.join(__dirname, 'fixtures');
const SAMPLE = path.join(fixtures, 'highlights.tn');
const EXPECTED = path.join(fixtures, 'highlights.expected');
const HELIX_HIGHLIGHTS = path.join(queriesDir, 'helix', 'highlights.scm');
const update = process.env.UPDATE_HIGHLIGHTS === '1';

/** Every .scm under grammar/queries/, as paths relative to it with `/` separators. */
function queryFiles(dir = queriesDir, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (fs.statSync(full).isDirectory()) out.push(...queryFiles(full, `${prefix}${name}/`));
    else if (name.endsWith('.scm')) out.push(prefix + name);
  }
  return out;
}

function compile(language: Language, rel: string, source = fs.readFileSync(path.join(queriesDir, rel), 'utf8')): Query {
  try {
    return new Query(language, source);
  } catch (e) {
    throw new Error(`grammar/queries/${rel} does not compile: ${(e as Error).message}`);
  }
}

/** `line:column capture "text"` for each captured node, with the capture that wins for that node. */
export function highlightLines(query: Query, tree: Tree, text: string): string[] {
  // The last pattern that captures a node wins (Neovim, Zed, Helix 25.07+, tree-sitter 0.21+).
  const winner = new Map<string, { start: number; end: number; name: string; pattern: number }>();
  for (const c of query.captures(tree.rootNode)) {
    if (c.name.startsWith('_')) continue;
    const key = `${c.node.startIndex}:${c.node.endIndex}`;
    const seen = winner.get(key);
    if (!seen || c.patternIndex >= seen.pattern) {
      winner.set(key, { start: c.node.startIndex, end: c.node.endIndex, name: c.name, pattern: c.patternIndex });
    }
  }
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const position = (index: number): string => {
    let line = lineStarts.length - 1;
    while (lineStarts[line] > index) line--;
    // 1-based, and columns count code points, as `turn check` reports them
    return `${line + 1}:${[...text.slice(lineStarts[line], index)].length + 1}`;
  };
  return [...winner.values()]
    .sort((a, b) => a.start - b.start || b.end - a.end)
    .map((h) => `${position(h.start)} ${h.name} ${JSON.stringify(text.slice(h.start, h.end))}`);
}

/** queries/helix/highlights.scm, derived from queries/highlights.scm. */
export function helixHighlights(source: string): string {
  const body = source.replace(/^(;[^\n]*\n)+\n/, ''); // drop the leading comment paragraph
  const renamed = body
    .split('\n')
    .map((line) =>
      line.trimStart().startsWith(';') ? line : line.replace(/@([a-z_][\w.]*)/g, (m, name: string) => `@${helixName(name)}`),
    )
    .join('\n');
  return (
    '; Syntax highlighting for Turn in Helix: GENERATED from ../highlights.scm by\n' +
    '; test/grammar/queries.test.ts (UPDATE_HIGHLIGHTS=1), with the capture names renamed to the\n' +
    '; theme scopes Helix uses (HELIX_RENAMES in test/grammar/capture-names.ts). Edit ../highlights.scm.\n' +
    '; As there, the last pattern that captures a node wins (Helix 25.07 and later).\n\n' +
    renamed
  );
}

const files = queryFiles();

test('grammar/queries holds the standard query files', () => {
  for (const name of ['highlights.scm', 'locals.scm', 'tags.scm', 'injections.scm', 'indents.scm', 'folds.scm']) {
    assert.ok(files.includes(name), `grammar/queries/${name} is missing`);
  }
});

for (const rel of files) {
  test(`query ${rel} compiles against the grammar and uses only known captures`, async () => {
    const language = await loadTurnLanguage();
    const allowed = allowedCaptures(rel);
    assert.ok(allowed, `grammar/queries/${rel}: not a kind of query this project knows (see test/grammar/capture-names.ts)`);
    const source = fs.readFileSync(path.join(queriesDir, rel), 'utf8');
    const query = compile(language, rel, source);
    try {
      assert.ok(query.patternCount() > 0, 'the query has no patterns');
      const unknown = query.captureNames.filter((n) => !n.startsWith('_') && !allowed.has(n));
      assert.deepEqual(unknown, [], `grammar/queries/${rel}: capture names outside the list in test/grammar/capture-names.ts`);
      const code = source.replace(/;[^\n]*/g, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');
      const predicates = [...code.matchAll(/#([\w-]+[?!])/g)].map((m) => m[1]);
      assert.deepEqual(predicates.filter((p) => !PORTABLE_PREDICATES.has(p)), [], 'predicates some editors do not understand');
    } finally {
      query.delete();
    }
  });
}

test('the highlights of the sample are the expected ones', async () => {
  const language = await loadTurnLanguage();
  const parser = await createParser();
  const text = fs.readFileSync(SAMPLE, 'utf8');
  const tree = parser.parse(text)!;
  const query = compile(language, 'highlights.scm');
  try {
    assert.equal(tree.rootNode.hasError, false, 'the sample does not parse');
    const actual = highlightLines(query, tree, text);
    if (update) fs.writeFileSync(EXPECTED, actual.join('\n') + '\n');
    const expected = fs.readFileSync(EXPECTED, 'utf8').split('\n').filter((l) => l !== '');
    assert.deepEqual(actual, expected, 'highlights changed: if on purpose, regenerate with UPDATE_HIGHLIGHTS=1 (see the header) and review the diff');
    // Every capture name of the query shows up in the sample, so the expected file covers them all.
    const shown = new Set(actual.map((l) => l.split(' ')[1]));
    assert.deepEqual(query.captureNames.filter((n) => !n.startsWith('_') && !shown.has(n)), [], 'captures the sample never exercises');
  } finally {
    query.delete();
    tree.delete();
    parser.delete();
  }
});

test('queries/helix/highlights.scm is queries/highlights.scm with Helix names', async () => {
  const derived = helixHighlights(fs.readFileSync(path.join(queriesDir, 'highlights.scm'), 'utf8'));
  if (update) fs.writeFileSync(HELIX_HIGHLIGHTS, derived);
  assert.equal(fs.readFileSync(HELIX_HIGHLIGHTS, 'utf8'), derived, 'stale: regenerate with UPDATE_HIGHLIGHTS=1 (see the header)');
  // The Helix file highlights the sample exactly as the standard one, but for the names.
  const language = await loadTurnLanguage();
  const parser = await createParser();
  const text = fs.readFileSync(SAMPLE, 'utf8');
  const tree = parser.parse(text)!;
  const standard = compile(language, 'highlights.scm');
  const helix = compile(language, 'helix/highlights.scm');
  try {
    const rename = (l: string) => l.replace(/^(\S+) (\S+)/, (_, pos: string, name: string) => `${pos} ${helixName(name)}`);
    assert.deepEqual(highlightLines(helix, tree, text), highlightLines(standard, tree, text).map(rename));
  } finally {
    standard.delete();
    helix.delete();
    tree.delete();
    parser.delete();
  }
});

test('grammar/tree-sitter.json describes the grammar for the CLI and the editors', () => {
  const config = JSON.parse(fs.readFileSync(path.join(grammarDir, 'tree-sitter.json'), 'utf8'));
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.ok(Array.isArray(config.grammars) && config.grammars.length === 1, 'one grammar');
  const g = config.grammars[0];
  // tree-sitter 0.25's tree-sitter.json: the keys it allows, the ones it requires
  const keys = ['name', 'camelcase', 'title', 'scope', 'path', 'external-files', 'file-types', 'highlights', 'injections', 'locals', 'tags', 'injection-regex', 'first-line-regex', 'content-regex', 'class-name'];
  assert.deepEqual(Object.keys(g).filter((k) => !keys.includes(k)), [], 'keys tree-sitter.json does not allow in a grammar');
  assert.equal(g.name, 'turn');
  assert.match(g.name, /^[a-z0-9_]+$/);
  assert.equal(g.scope, 'source.turn');
  assert.equal(g.scope, pkg.contributes.grammars[0].scopeName, 'the TextMate scope the extension contributes');
  assert.equal(g.path, '.');
  assert.deepEqual(g['file-types'], ['tn']);
  assert.ok(new RegExp(g['injection-regex']).test('turn'), 'injection-regex matches `turn` (Markdown fences)');
  for (const kind of ['highlights', 'injections', 'locals', 'tags']) {
    assert.equal(g[kind], `queries/${kind}.scm`, `${kind} is the standard path`);
    assert.ok(fs.existsSync(path.join(grammarDir, g[kind])), `${g[kind]} exists`);
  }
  const meta = config.metadata;
  assert.deepEqual(Object.keys(meta).filter((k) => !['version', 'license', 'description', 'links', 'authors', 'namespace'].includes(k)), []);
  assert.match(meta.version, /^\d+\.\d+\.\d+$/);
  assert.equal(meta.version, pkg.version, 'the grammar is versioned with the extension');
  assert.equal(meta.license, pkg.license);
  assert.equal(meta.links.repository, pkg.repository.url, 'metadata.links.repository (required) is the repository of package.json');
  assert.deepEqual(Object.keys(config).filter((k) => !['$schema', 'grammars', 'metadata', 'bindings'].includes(k)), []);
});

/**
 * The sample as a tree-sitter CLI highlight test: after each line, `// ^ capture` assertions at the
 * start of each captured token (the innermost one where several start at the same column).
 */
function cliHighlightTest(sample: string, expected: string[]): string {
  const byLine = new Map<number, Map<number, string>>();
  for (const l of expected) {
    const m = /^(\d+):(\d+) (\S+) (.*)$/.exec(l)!;
    const text = JSON.parse(m[4]) as string;
    if (text.includes('\n') || /^(\/\/|\/\*)/.test(text)) continue; // comments and multi-line nodes
    const line = Number(m[1]);
    if (!byLine.has(line)) byLine.set(line, new Map());
    byLine.get(line)!.set(Number(m[2]) - 1, m[3]); // sorted outer first: the innermost is set last
  }
  const out: string[] = [];
  sample.split('\n').forEach((text, i) => {
    out.push(text);
    if (/[^\x00-\x7f]/.test(text)) return; // the CLI counts columns in bytes
    for (const [col, name] of byLine.get(i + 1) ?? []) {
      out.push(col < 2 ? `${' '.repeat(col)}// <- ${name}` : `//${' '.repeat(col - 2)}^ ${name}`);
    }
  });
  return out.join('\n');
}

const cli = spawnSync('tree-sitter', ['--version'], { encoding: 'utf8' });

test('the tree-sitter CLI reads tree-sitter.json and highlights the sample as expected', { skip: cli.status === 0 ? false : 'tree-sitter CLI not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-queries-'));
  try {
    fs.cpSync(grammarDir, dir, { recursive: true });
    // Without locals: the CLI would give a reference its definition's highlight, which the expected
    // file (highlights.scm alone) does not model.
    const configFile = path.join(dir, 'tree-sitter.json');
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    config.grammars[0].locals = 'queries/no-locals.scm';
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    fs.writeFileSync(path.join(dir, 'queries', 'no-locals.scm'), '');
    fs.mkdirSync(path.join(dir, 'test', 'highlight'), { recursive: true });
    const expected = fs.readFileSync(EXPECTED, 'utf8').split('\n').filter((l) => l !== '');
    fs.writeFileSync(path.join(dir, 'test', 'highlight', 'sample.tn'), cliHighlightTest(fs.readFileSync(SAMPLE, 'utf8'), expected));
    const r = spawnSync('tree-sitter', ['test'], { cwd: dir, encoding: 'utf8' });
    const output = `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
    assert.equal(r.status, 0, output);
    assert.match(output, /sample\.tn \(\d+ assertions\)/, output);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
