// The open documents, plus Turn files on disk that navigation reaches (modules a document `use`s,
// files of the workspace folders for workspace symbols and cross-file references).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import type { Parser } from 'web-tree-sitter';
import { createParser } from '../runtime/index.js';
import { readSourceText } from '../runtime/index.js';
import { TurnDocument, MAX_ANALYSED_BYTES, PARSE_TIME_CAP_MS } from './document.js';
import { uriToPath } from './uri.js';

/** At most this many `.tn` files are read from the workspace folders. */
export const MAX_WORKSPACE_FILES = 2000;
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', '.turn']);

export function pathToUri(p: string): string {
  return path.isAbsolute(p) ? pathToFileURL(p).href : p;
}

export class Workspace {
  private readonly open = new Map<string, TurnDocument>();
  /** Files read from disk, by path, with the mtime they were read at. */
  private readonly disk = new Map<string, { doc: TurnDocument; mtimeMs: number }>();
  roots: string[] = [];

  constructor(
    readonly parser: Parser,
    readonly capMs = PARSE_TIME_CAP_MS,
    readonly maxBytes = MAX_ANALYSED_BYTES,
  ) {}

  static async create(): Promise<Workspace> {
    return new Workspace(await createParser());
  }

  openDocument(uri: string, text: string, version: number): TurnDocument {
    this.open.get(uri)?.dispose();
    const doc = TurnDocument.open(uri, uriToPath(uri), text, version, this.parser, this.capMs, this.maxBytes);
    this.open.set(uri, doc);
    return doc;
  }

  changeDocument(uri: string, changes: readonly TextDocumentContentChangeEvent[], version: number): TurnDocument | undefined {
    const doc = this.open.get(uri);
    doc?.applyChanges(changes, version);
    return doc;
  }

  closeDocument(uri: string): void {
    this.open.get(uri)?.dispose();
    this.open.delete(uri);
  }

  get(uri: string): TurnDocument | undefined {
    return this.open.get(uri);
  }

  openDocuments(): TurnDocument[] {
    return [...this.open.values()];
  }

  /** The open document with this path, else the file read from disk (re-read when it changed); undefined if unreadable. */
  byPath(filePath: string): TurnDocument | undefined {
    for (const doc of this.open.values()) if (doc.path === filePath) return doc;
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(filePath).mtimeMs;
    } catch {
      return undefined;
    }
    const cached = this.disk.get(filePath);
    if (cached && cached.mtimeMs === mtimeMs) return cached.doc;
    let text: string;
    try {
      text = readSourceText(filePath);
    } catch {
      return undefined;
    }
    cached?.doc.dispose();
    const doc = TurnDocument.open(pathToUri(filePath), filePath, text, 0, this.parser, this.capMs, this.maxBytes);
    this.disk.set(filePath, { doc, mtimeMs });
    return doc;
  }

  /** `.tn` files under the workspace folders (bounded), plus every open document's path. */
  workspaceFiles(): string[] {
    const out = new Set<string>();
    for (const doc of this.open.values()) out.add(doc.path);
    const visit = (dir: string) => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (out.size >= MAX_WORKSPACE_FILES) return;
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) visit(path.join(dir, e.name));
        } else if (e.isFile() && e.name.endsWith('.tn')) out.add(path.join(dir, e.name));
      }
    };
    for (const root of this.roots) visit(root);
    return [...out];
  }

  /** Every workspace document (open or read from disk). */
  allDocuments(): TurnDocument[] {
    return this.workspaceFiles()
      .map((p) => this.byPath(p))
      .filter((d): d is TurnDocument => d !== undefined);
  }

  dispose(): void {
    for (const doc of this.open.values()) doc.dispose();
    for (const { doc } of this.disk.values()) doc.dispose();
    this.open.clear();
    this.disk.clear();
  }
}
