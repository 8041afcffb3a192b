// Shared by the handler tests: opens fixture files (or text) in a real Workspace and finds cursor
// markers. A marker is a block comment `/*|name*/`; the cursor is right after it, so fixtures stay
// valid Turn and the markers take part in the parity and formatter tests like any comment.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Position } from 'vscode-languageserver';
import type { TurnDocument } from '../../language-server/document.js';
import { Workspace } from '../../language-server/workspace.js';

export const FIXTURES = path.join(__dirname, 'fixtures');

let shared: Promise<Workspace> | undefined;
export function workspace(): Promise<Workspace> {
  shared ??= Workspace.create().then((ws) => {
    ws.roots = [FIXTURES];
    return ws;
  });
  return shared;
}

export function fixturePath(name: string): string {
  return path.join(FIXTURES, name);
}

export function uriOf(filePath: string): string {
  return pathToFileURL(filePath).href;
}

/** Opens a fixture file as an open document (version 1). */
export async function openFixture(name: string): Promise<TurnDocument> {
  const p = fixturePath(name);
  return (await workspace()).openDocument(uriOf(p), fs.readFileSync(p, 'utf8'), 1);
}

/** Opens `text` as an untitled-like document at a path under fixtures/ (which need not exist). */
export async function openText(text: string, name = 'inline.tn'): Promise<TurnDocument> {
  return (await workspace()).openDocument(uriOf(fixturePath(name)), text, 1);
}

/** The offset right after the marker `/*|name*\/` (or `/*|*\/` for the unnamed one). */
export function markerOffset(text: string, name = ''): number {
  const m = `/*|${name}*/`;
  const at = text.indexOf(m);
  if (at < 0) throw new Error(`no marker ${m}`);
  return at + m.length;
}

export function at(doc: TurnDocument, name = ''): Position {
  return doc.file.utf16Position(markerOffset(doc.text, name));
}

/** The text a range covers in `doc`. */
export function textOf(doc: TurnDocument, range: { start: Position; end: Position }): string {
  return doc.text.slice(doc.offsetAt(range.start), doc.offsetAt(range.end));
}

/** Every `.tn` the parity and formatter tests run over: fixtures, examples and the project's conformance programs. */
export function allTurnFiles(): string[] {
  const root = path.join(__dirname, '..', '..');
  const dirs = [FIXTURES, path.join(root, 'examples'), path.join(root, 'test', 'conformance', 'programs')];
  const out: string[] = [];
  for (const d of dirs) {
    for (const f of fs.readdirSync(d).sort()) if (f.endsWith('.tn')) out.push(path.join(d, f));
  }
  return out;
}
