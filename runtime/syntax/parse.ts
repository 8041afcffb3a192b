// Loads the Turn grammar (grammar/tree-sitter-turn.wasm, the same file the editor uses) into
// web-tree-sitter and turns source text into the AST plus syntax diagnostics.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import type { Diagnostic } from '../diagnostics.js';
import type { Program } from './ast.js';
import { lowerProgram } from './lower.js';
import { SourceFile } from './source.js';
import { nestingBeyond, nestingMessage } from './nesting.js';
import { keepWasmOnBaselineTier } from './wasm-tiering.js';

const WASM_NAME = 'tree-sitter-turn.wasm';

/** Finds grammar/tree-sitter-turn.wasm above this module, whether it runs from source or from dist/. */
export function grammarWasmPath(): string {
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'grammar', WASM_NAME);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find grammar/${WASM_NAME} above ${__dirname}`);
    dir = parent;
  }
}

let languagePromise: Promise<Language> | undefined;

/** The Turn language, loaded once per process. */
export function loadTurnLanguage(): Promise<Language> {
  languagePromise ??= (async () => {
    keepWasmOnBaselineTier(); // before the grammar's WebAssembly is compiled (wasm-tiering.ts)
    await Parser.init();
    // the bytes, not the path: given a path, web-tree-sitter reads it through node:fs/promises, which
    // loads a dozen modules outside Node's start-up snapshot (docs/performance.md, *Cold start*)
    return Language.load(fs.readFileSync(grammarWasmPath()));
  })();
  return languagePromise;
}

/** A parser for Turn. The caller owns it and must `delete()` it (and every tree) when done. */
export async function createParser(): Promise<Parser> {
  const language = await loadTurnLanguage(); // also initialises web-tree-sitter
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

export interface ParseResult {
  program: Program;
  diagnostics: Diagnostic[];
  file: SourceFile;
}

let sharedParser: Promise<Parser> | undefined;

/** Parses and lowers one file. Syntax errors come back as diagnostics, never as exceptions. */
export async function parseSource(filePath: string, text: string): Promise<ParseResult> {
  const file = new SourceFile(filePath, text);
  sharedParser ??= createParser();
  const parser = await sharedParser;
  const deep = nestingBeyond(text);
  if (deep >= 0) {
    // refused before tree-sitter, whose stack it could overflow (runtime/syntax/nesting.ts)
    const diagnostic: Diagnostic = { severity: 'error', code: 'nesting', span: { start: deep, end: deep + 1 }, message: nestingMessage() };
    return { program: { kind: 'Program', body: [], span: { start: 0, end: text.length } }, diagnostics: [diagnostic], file };
  }
  const tree: Tree | null = parser.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  try {
    const { program, diagnostics } = lowerProgram(tree.rootNode, file);
    return { program, diagnostics, file };
  } finally {
    tree.delete();
  }
}
