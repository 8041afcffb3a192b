// The document model: one open (or on-disk) Turn file with its text, its tree-sitter tree kept up to
// date incrementally, and its analysis (AST, diagnostics, symbol index) computed lazily per version.
//
// LSP positions are 0-based lines and UTF-16 code units; web-tree-sitter, given a JavaScript string,
// counts indices and columns in UTF-16 code units too. So an LSP position (line, character) is the
// tree-sitter point (row, column), and a text offset is a tree-sitter index: no conversion happens.
import type { Range, TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { Edit, type Parser, type Point, type Tree } from 'web-tree-sitter';
import type { Diagnostic } from '../runtime/index.js';
import type { Program, UseExpr, UseSchemaExpr } from '../runtime/index.js';
import { LoweringCache, lowerProgram, nowMs } from '../runtime/index.js';
import { SourceFile } from '../runtime/index.js';
import { checkParsed } from '../runtime/index.js';
import { absorbSchemas, schemaKey, type AbsorbedSchemas, type SchemaFetching } from '../runtime/index.js';
import { indexProgram, type SymbolIndex } from '../runtime/index.js';
import type { ModuleContext, ModuleExports } from '../runtime/index.js';
import { nestingBeyond, nestingMessage } from '../runtime/index.js';
import { MAX_SOURCE_BYTES } from '../runtime/index.js';

/**
 * A parse (full or incremental) that takes longer than this, per started 512 KiB of text, is
 * abandoned; the document reports it. Scaled by size so that a large file is not cut off by the
 * cap meant to stop a pathological small one (a 2 MB file parses in about a second on a quiet machine).
 */
export const PARSE_TIME_CAP_MS = 2000;
const PARSE_CAP_UNIT = 512 * 1024;

/**
 * Documents larger than this (UTF-8 bytes) are not parsed or analysed in the editor: they get one
 * `too-large` diagnostic and every feature answers empty at once. The same bound as `turn check`'s
 * (the runtime's MAX_SOURCE_BYTES, 4 MiB): a 2 MB file gets diagnostics, and a hostile 1 GB one is
 * measured (its UTF-16 length first, no copy) and refused without being parsed.
 */
export const MAX_ANALYSED_BYTES = MAX_SOURCE_BYTES;

/** The UTF-8 size of `text`, counted only when it could be near `limit`. */
function overLimit(text: string, limit: number): number | undefined {
  if (text.length > limit) return Buffer.byteLength(text, 'utf8');
  if (text.length * 3 <= limit) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > limit ? bytes : undefined;
}

export interface Analysis {
  file: SourceFile;
  program: Program;
  /** Exactly what `checkSource` (and so `turn check`) reports for this text. */
  diagnostics: Diagnostic[];
  /** The symbol index, built on first use (publishing diagnostics does not need it). */
  readonly index: SymbolIndex;
  /** Whether `index` is built (reading it would not cost a pass over the program). */
  readonly indexed: boolean;
  /** Resolved absolute path of each `use "..."` whose file exists. */
  uses: Map<UseExpr | UseSchemaExpr, string>;
  /** The program's `use schema` expressions (found by the analysis' walk, so not walked again). */
  schemaUses: UseSchemaExpr[];
  /** The syntax diagnostics alone (a module with any is named at the `use`s of it). */
  syntax: Diagnostic[];
  /** What the file exports to the files that use it. */
  exports?: ModuleExports;
}

// The last analysis and the edits since, from which completion and hover answer (stale.ts).
/** One edit, in offsets of the text it was applied to: [start, oldEnd) became `length` characters. */
export interface TextEdit {
  start: number;
  oldEnd: number;
  length: number;
}

/** More edits than this since the last analysis and it is dropped: requests wait for a fresh one. */
export const MAX_PENDING_EDITS = 64;

/** An analysis of a document and the edits made since. */
export interface LastAnalysis {
  analysis: Analysis;
  edits: TextEdit[];
}

/** Parses `text`, reusing `oldTree` (already edited) when given; null when the time cap ran out. */
export function parseWithCap(parser: Parser, text: string, oldTree: Tree | null, capMs = PARSE_TIME_CAP_MS): Tree | null {
  const deadline = nowMs() + capMs;
  const tree = parser.parse(text, oldTree, { progressCallback: () => nowMs() > deadline });
  if (!tree) parser.reset();
  return tree;
}

/** The tree-sitter point of an offset: row and UTF-16 column, which is what LSP positions are. */
export function pointAt(file: SourceFile, offset: number): Point {
  const { line, character } = file.utf16Position(offset);
  return { row: line, column: character };
}

/** Where inserted text ends, from where it starts. */
function pointAfter(start: Point, inserted: string): Point {
  const lastNewline = inserted.lastIndexOf('\n');
  if (lastNewline < 0) return { row: start.row, column: start.column + inserted.length };
  let rows = 0;
  for (let i = 0; i < inserted.length; i++) if (inserted.charCodeAt(i) === 10) rows++;
  return { row: start.row + rows, column: inserted.length - lastNewline - 1 };
}

export class TurnDocument {
  private fileCache: SourceFile | undefined;
  private analysisCache: Analysis | undefined;
  /** The last analysis made from a tree and what changed since (stale.ts). */
  private last: LastAnalysis | undefined;
  /**
   * The last analysis whose symbol index is built, and what changed since: completion and hover
   * answer from it (stale.ts), so that a request never waits for the index of a newer analysis.
   * The same object as `last` once that one's index is built.
   */
  private lastIndexed: LastAnalysis | undefined;
  /** Set when the last parse ran past the time cap. */
  parseTimedOut = false;
  /** Where the text nests too deep to be parsed (runtime/syntax/nesting.ts); -1 when it does not. */
  private tooDeepAt = -1;
  /** The text's size in bytes when it is over the size cap (then it is neither parsed nor analysed). */
  private oversize: number | undefined;
  /** Top-level statements of the last lowering, reused by the next (see `lowerProgram`). */
  private readonly lowering = new LoweringCache();

  private constructor(
    readonly uri: string,
    readonly path: string,
    private currentText: string,
    private currentVersion: number,
    private readonly parser: Parser,
    private currentTree: Tree | null,
    private readonly capMs: number,
    private readonly maxBytes: number,
  ) {}

  static open(uri: string, path: string, text: string, version: number, parser: Parser, capMs = PARSE_TIME_CAP_MS, maxBytes = MAX_ANALYSED_BYTES): TurnDocument {
    const doc = new TurnDocument(uri, path, text, version, parser, null, capMs, maxBytes);
    doc.reparse(null);
    return doc;
  }

  get text(): string {
    return this.currentText;
  }

  get version(): number {
    return this.currentVersion;
  }

  /** Over the size cap: not parsed, not analysed; features answer empty (server.ts). */
  get tooLarge(): boolean {
    return this.oversize !== undefined;
  }

  /** How many top-level statements the last lowering reused from the previous one, and lowered afresh. */
  get loweringReuse(): { reused: number; lowered: number } {
    return { reused: this.lowering.reused, lowered: this.lowering.lowered };
  }

  /** The current tree; null when the last parse ran out of time or the text is too large. Owned by the document: do not delete. */
  get tree(): Tree | null {
    return this.currentTree;
  }

  get file(): SourceFile {
    this.fileCache ??= new SourceFile(this.path, this.currentText);
    return this.fileCache;
  }

  offsetAt(position: { line: number; character: number }): number {
    return this.file.offsetAt(position.line, position.character);
  }

  /**
   * Applies LSP content changes in order: each ranged change edits the text and the tree; a change
   * without a range replaces the whole text. Then the tree is re-parsed once, reusing what did not change.
   */
  applyChanges(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    let reuse = this.currentTree !== null;
    for (const change of changes) {
      if (!('range' in change) || !change.range) {
        this.currentText = change.text;
        this.fileCache = undefined;
        reuse = false;
        this.last = this.lastIndexed = undefined; // nothing of the old text is known to remain
        continue;
      }
      this.promoteIndexed();
      const file = this.file;
      const start = file.offsetAt(change.range.start.line, change.range.start.character);
      const oldEnd = Math.max(start, file.offsetAt(change.range.end.line, change.range.end.character));
      const startPosition = pointAt(file, start);
      const oldEndPosition = pointAt(file, oldEnd);
      this.currentText = this.currentText.slice(0, start) + change.text + this.currentText.slice(oldEnd);
      const edit = { start, oldEnd, length: change.text.length };
      if (this.last) this.last.edits.push(edit);
      if (this.lastIndexed && this.lastIndexed !== this.last) this.lastIndexed.edits.push(edit);
      if (this.last && this.last.edits.length > MAX_PENDING_EDITS) this.last = undefined;
      if (this.lastIndexed && this.lastIndexed.edits.length > MAX_PENDING_EDITS) this.lastIndexed = undefined;
      this.fileCache = undefined;
      if (reuse && this.currentTree) {
        this.currentTree.edit(
          new Edit({
            startIndex: start,
            oldEndIndex: oldEnd,
            newEndIndex: start + change.text.length,
            startPosition,
            oldEndPosition,
            newEndPosition: pointAfter(startPosition, change.text),
          }),
        );
      }
    }
    this.currentVersion = version;
    this.analysisCache = undefined;
    this.reparse(reuse ? this.currentTree : null);
  }

  /** The parse time cap for the current text: `capMs` per started PARSE_CAP_UNIT. */
  private get parseCapMs(): number {
    return this.capMs * Math.max(1, Math.ceil(this.currentText.length / PARSE_CAP_UNIT));
  }

  private reparse(oldTree: Tree | null): void {
    const previous = this.currentTree;
    this.oversize = overLimit(this.currentText, this.maxBytes);
    if (this.oversize !== undefined) {
      previous?.delete();
      this.currentTree = null;
      this.parseTimedOut = false;
      return;
    }
    this.tooDeepAt = nestingBeyond(this.currentText);
    if (this.tooDeepAt >= 0) {
      // never handed to tree-sitter, whose stack it could overflow (runtime/syntax/nesting.ts)
      previous?.delete();
      this.currentTree = null;
      this.parseTimedOut = false;
      return;
    }
    const tree = parseWithCap(this.parser, this.currentText, oldTree, this.parseCapMs);
    previous?.delete(); // the old tree is freed whether or not it was reused
    this.currentTree = tree;
    this.parseTimedOut = tree === null;
  }

  private schemas: AbsorbedSchemas | undefined;
  private schemasKey = '';

  /**
   * Absorbs the specs named by this document's `use schema` lines (reading files, or the schema
   * cache), so the next `analysis()` knows their structs, as `turn check` does. Re-absorbs only when
   * the set of specs changes.
   */
  async prepareSchemas(fetching?: SchemaFetching): Promise<void> {
    const { program, schemaUses } = this.analysis();
    const key = schemaUses.map(schemaKey).sort().join('\n');
    if (key === this.schemasKey && !fetching) return;
    this.schemasKey = key;
    this.schemas = key === '' ? undefined : await absorbSchemas(this.path, program, fetching);
    this.analysisCache = undefined;
  }

  /** The analysis of the current text (computed on first use after each change). */
  analysis(): Analysis {
    if (this.analysisCache) return this.analysisCache;
    const file = this.file;
    if (!this.currentTree) {
      // Too large, or parsing ran out of time: say so instead of showing stale or partial results.
      const program: Program = { kind: 'Program', body: [], span: { start: 0, end: file.text.length } };
      const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
      const diagnostic: Diagnostic =
        this.tooDeepAt >= 0
          ? { severity: 'error', code: 'nesting', span: { start: this.tooDeepAt, end: this.tooDeepAt + 1 }, message: nestingMessage() }
          : this.oversize !== undefined
          ? { severity: 'warning', code: 'too-large', span: { start: 0, end: 0 }, message: `this file is too large to analyse in the editor (${mib(this.oversize)}; the limit is ${mib(this.maxBytes)}): no diagnostics, completion, hover or outline` }
          : { severity: 'error', code: 'parse-timeout', span: { start: 0, end: 0 }, message: `parsing took longer than ${this.parseCapMs} ms and was stopped` };
      this.analysisCache = { file, program, diagnostics: [diagnostic], index: indexProgram(program).index, indexed: true, uses: new Map(), schemaUses: [], syntax: [diagnostic] };
      return this.analysisCache;
    }
    this.promoteIndexed(); // the analysis replaced below may be the last one with an index
    this.analysisCache = analyzeTree(this.path, file, this.currentTree, this.schemas, this.lowering, this.moduleContext);
    this.last = { analysis: this.analysisCache, edits: [] };
    return this.analysisCache;
  }

  /** Whether `analysis()` would answer at once (no analysis to compute first). */
  get analysed(): boolean {
    return this.analysisCache !== undefined;
  }

  /**
   * The analysis a request answers from when the current one is not made or not indexed (stale.ts):
   * the last one with its symbol index built, else the last one (its index is then built for the
   * request, which costs one pass, not a re-check), with the edits since; undefined: none, or the
   * whole text was replaced.
   */
  get lastAnalysis(): LastAnalysis | undefined {
    this.promoteIndexed();
    return this.lastIndexed ?? this.last;
  }

  /** The last analysis becomes the one requests answer from once its index is built (by whoever read it). */
  private promoteIndexed(): void {
    if (this.last && this.last !== this.lastIndexed && this.last.analysis.indexed) this.lastIndexed = this.last;
  }

  /** What this document's modules export, as the server last prepared it (modules.ts); undefined: none yet. */
  private moduleContext: ModuleContext | undefined;
  /** The files the last module context was made of (this document's modules and theirs). */
  modulePaths: ReadonlySet<string> = new Set();

  /** Analyses from now on type this document's `use`s by `context` (the server's `prepareModules`). */
  setModules(context: ModuleContext, paths: ReadonlySet<string>): void {
    // A file that uses no module is analysed the same with or without a context: its analysis stands
    // (re-made, it was a second whole check of each publish, since the server sets the context each time).
    const none = (c: ModuleContext | undefined) => c === undefined || c.modules.size === 0;
    const same = none(this.moduleContext) && none(context);
    this.moduleContext = context;
    this.modulePaths = paths;
    if (!same) this.analysisCache = undefined;
  }

  get modules(): ModuleContext | undefined {
    return this.moduleContext;
  }

  dispose(): void {
    this.currentTree?.delete();
    this.currentTree = null;
  }
}

/**
 * What `checkSource` (runtime/check/index.ts) computes, from a tree the document already has: the
 * same lowering, then the same `checkParsed`. The parity test (test/language-server/parity.test.ts)
 * compares the two on every fixture and conformance program.
 */
export function analyzeTree(filePath: string, file: SourceFile, tree: Tree, schemas?: AbsorbedSchemas, lowering?: LoweringCache, modules?: ModuleContext): Analysis {
  const lowered = lowerProgram(tree.rootNode, file, lowering);
  const { program, diagnostics: all, uses, schemaUses, exports, imports } = checkParsed(filePath, file, lowered.program, lowered.diagnostics, schemas, modules);
  const tooDeep = lowered.diagnostics.some((d) => d.code === 'nesting');
  let index: SymbolIndex | undefined;
  return {
    file,
    program,
    diagnostics: all,
    uses,
    schemaUses,
    syntax: lowered.diagnostics,
    exports,
    get index() {
      // Past the nesting limit the analyzer is not run (as in checkSource); the index is then empty.
      index ??= indexProgram(tooDeep ? { kind: 'Program', body: [], span: program.span } : program, modules ? imports : undefined).index;
      return index;
    },
    get indexed() {
      return index !== undefined;
    },
  };
}

/** An LSP range as UTF-16 offsets into `file`. */
export function rangeToSpan(file: SourceFile, range: Range): { start: number; end: number } {
  return { start: file.offsetAt(range.start.line, range.start.character), end: file.offsetAt(range.end.line, range.end.character) };
}
