// Completion and hover from the last analysis, without waiting for a re-check (issue 45).
//
// Analysing a 45,000-line file takes most of a second, and an edit makes the document's analysis
// stale until the debounced re-check runs. A completion or hover request in between is answered
// from the previous analysis: the document keeps it with the edits made since (`TextEdit`s, each
// in the offsets of the text it was applied to). Where an offset of the current text was not
// touched by them, it maps back to the old text (`charToOld`), and a range of the old text maps
// forward (`toCurrent`).
//
// Hover at an untouched position is answered on a view of the old text, its range mapped forward.
// Completion usually comes right after typing at the cursor, inside an edit. When every edit that
// touches the cursor's line lies within it, the view is the old text with that line as it is now:
// what the analysis knows (declarations, scopes, types) keeps its offsets before the line, and the
// providers read what was typed. A request no view can serve waits for the analysis as before.
import type { Position, Range } from 'vscode-languageserver';
import type { SourceFile } from '../runtime/index.js';
import { SourceFile as File } from '../runtime/index.js';
import type { Analysis, LastAnalysis, TextEdit, TurnDocument } from './document.js';

/** Where the character at `offset` of the current text was in the old text, or undefined if an edit wrote it. */
export function charToOld(edits: readonly TextEdit[], offset: number): number | undefined {
  let o = offset;
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i];
    if (o < e.start) continue;
    if (o < e.start + e.length) return undefined;
    o += e.oldEnd - e.start - e.length;
  }
  return o;
}

/** The offset of the current text that `offset` of the old text became (an offset an edit removed: where the edit is). */
export function toCurrent(edits: readonly TextEdit[], offset: number): number {
  let o = offset;
  for (const e of edits) {
    if (o >= e.oldEnd) o = o - (e.oldEnd - e.start) + e.length;
    else if (o > e.start) o = e.start;
  }
  return o;
}

/** A view of the document for one request: its position in the view, and the view's ranges as ranges of the current text. */
export interface StaleView {
  doc: TurnDocument;
  position: Position;
  toCurrent(range: Range): Range;
}

/**
 * A document whose text, file and analysis are `file`'s and `analysis`, with no tree (the tree is
 * the current text's). The other members (path, modules, uri ...) are the document's own.
 */
function viewOf(doc: TurnDocument, file: SourceFile, analysis: Analysis): TurnDocument {
  const view = Object.create(doc) as TurnDocument;
  Object.defineProperties(view, {
    text: { get: () => file.text },
    file: { get: () => file },
    tree: { get: () => null },
    analysis: { value: () => analysis },
    offsetAt: { value: (p: Position) => file.offsetAt(p.line, p.character) },
  });
  return view;
}

/**
 * The old offsets of the current line [start, end), when every edit lies within it or wholly
 * outside it: then the old text with the line as it is now is the current text.
 */
function lineInOld(edits: readonly TextEdit[], start: number, end: number): { start: number; end: number } | undefined {
  let s = start;
  let e = end;
  for (let i = edits.length - 1; i >= 0; i--) {
    const edit = edits[i];
    const newEnd = edit.start + edit.length;
    const delta = edit.length - (edit.oldEnd - edit.start);
    if (edit.start >= s && newEnd <= e) e -= delta; // within the line (a deletion at its ends included)
    else if (newEnd <= s) {
      s -= delta;
      e -= delta;
    } else if (edit.start < e) return undefined; // across the line's start or end
  }
  return { start: s, end: e };
}

/**
 * A view that answers a request at `position` (of the current text) from `last`, or undefined when
 * the last analysis cannot. `completion`: the request reads the text typed at the cursor.
 */
export function staleView(doc: TurnDocument, last: LastAnalysis, position: Position, completion: boolean): StaleView | undefined {
  const current = doc.file;
  const old = last.analysis.file;
  const { edits } = last;
  const offset = current.offsetAt(position.line, position.character);
  if (completion) {
    const text = current.text;
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    const next = text.indexOf('\n', offset);
    const lineEnd = next < 0 ? text.length : next;
    const line = lineInOld(edits, lineStart, lineEnd);
    if (!line) return undefined;
    const viewFile = new File(doc.path, old.text.slice(0, line.start) + text.slice(lineStart, lineEnd) + old.text.slice(line.end));
    // completion items carry no ranges: nothing to map back
    return { doc: viewOf(doc, viewFile, last.analysis), position: viewFile.utf16Position(line.start + offset - lineStart), toCurrent: (r) => r };
  }
  // the character at the cursor must be one the old analysis knew (no edit wrote it)
  const inOld = charToOld(edits, offset);
  if (inOld === undefined) return undefined;
  const mapRange = (r: Range): Range => {
    const s = toCurrent(edits, old.offsetAt(r.start.line, r.start.character));
    const e = toCurrent(edits, old.offsetAt(r.end.line, r.end.character));
    return { start: current.utf16Position(s), end: current.utf16Position(Math.max(s, e)) };
  };
  return { doc: viewOf(doc, old, last.analysis), position: old.utf16Position(inOld), toCurrent: mapRange };
}
