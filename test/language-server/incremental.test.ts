// Incremental lowering (a document reuses the AST of unchanged top-level statements, see
// `lowerProgram` in runtime/syntax/lower.ts) gives exactly what a from-scratch `checkSource` gives:
// after each of many seeded random edits — characters typed and deleted, syntax broken and fixed
// again, a used binding renamed — the document's diagnostics and its whole AST (spans included)
// equal those of checking the same text afresh.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { describe, it } from 'node:test';
import { checkSource } from '../../runtime/check/index.js';
import { toLspDiagnostics } from '../../language-server/diagnostics.js';
import { documentDiagnostics } from '../../language-server/validate.js';
import type { TurnDocument } from '../../language-server/document.js';
import { generateProgram } from '../../bench/lsp.js';
import { allTurnFiles, uriOf, workspace } from './helpers.js';

/** mulberry32: a small seeded generator, so a failure names its seed and replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPED = ['{', '}', ';', '(', ')', 'x', ' ', '\n', '"', '7', 'let ', '.', '😀', '/*', '*/', '//'];

type Change = { start: number; end: number; text: string };

/** One random edit of `text`; `undo` holds the edit that restores a deletion ("fix the syntax again"). */
function randomEdit(text: string, next: () => number, undo: Change[]): Change {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const at = Math.floor(next() * (text.length + 1));
  const kind = next();
  if (undo.length > 0 && kind < 0.25) return undo.pop()!;
  if (kind < 0.45) return { start: at, end: at, text: pick(TYPED) };
  if (kind < 0.7) {
    const end = Math.min(text.length, at + 1 + Math.floor(next() * 3));
    // keep a surrogate pair whole: an editor never splits one
    const s = at > 0 && /[\uDC00-\uDFFF]/.test(text[at] ?? '') ? at - 1 : at;
    const e = /[\uDC00-\uDFFF]/.test(text[end] ?? '') ? end + 1 : end;
    undo.push({ start: s, end: s, text: text.slice(s, e) });
    return { start: s, end: e, text: '' };
  }
  // Rename a binding that is used: one occurrence of a name that occurs more than once.
  const names = [...new Set(text.match(/\b[a-z][a-zA-Z]*\d+\b/g) ?? [])];
  const name = names.length > 0 ? pick(names) : undefined;
  if (!name) return { start: at, end: at, text: 'y' };
  const occurrences = [...text.matchAll(new RegExp(`\\b${name}\\b`, 'g'))].map((m) => m.index);
  const where = pick(occurrences);
  const renamed = next() < 0.5 ? name + 'r' : name.replace(/\d+$/, (d) => String(Number(d) + 1));
  undo.push({ start: where, end: where + renamed.length, text: name });
  return { start: where, end: where + name.length, text: renamed };
}

async function assertSameAsFresh(doc: TurnDocument, label: string): Promise<void> {
  await doc.prepareSchemas();
  const fresh = await checkSource(doc.path, doc.text);
  assert.deepEqual(documentDiagnostics(doc), toLspDiagnostics(fresh.file, fresh.diagnostics), `${label}: diagnostics`);
  assert.deepEqual(doc.analysis().program, fresh.program, `${label}: AST`);
}

async function editRandomly(doc: TurnDocument, seed: number, edits: number): Promise<number> {
  const next = random(seed);
  const undo: Change[] = [];
  let reused = 0;
  for (let k = 1; k <= edits; k++) {
    const change = randomEdit(doc.text, next, undo);
    const range = { start: doc.file.utf16Position(change.start), end: doc.file.utf16Position(change.end) };
    doc.applyChanges([{ range, text: change.text }], doc.version + 1);
    await assertSameAsFresh(doc, `seed ${seed}, edit ${k} (${JSON.stringify(change)})`);
    reused += doc.loweringReuse.reused;
  }
  return reused;
}

describe('incremental analysis equals a from-scratch check', () => {
  it('after random edits of a generated program, over many seeds', async () => {
    const ws = await workspace();
    const text = generateProgram(300);
    let reused = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const doc = ws.openDocument(uriOf(`/tmp/incremental-${seed}.tn`), text, 1);
      try {
        await assertSameAsFresh(doc, `seed ${seed}, opened`);
        reused += await editRandomly(doc, seed, 40);
      } finally {
        ws.closeDocument(doc.uri);
      }
    }
    // The incremental path did run: most of the 84 top-level statements came from the cache (an
    // unclosed comment or string typed above them makes the rest of the file new text).
    assert.ok(reused > 12 * 40 * 42, `only ${reused} statements reused over 480 edits`);
  });

  it('after random edits of every fixture, example and conformance program', async () => {
    const ws = await workspace();
    for (const [i, file] of allTurnFiles().entries()) {
      const doc = ws.openDocument(uriOf(file) + '#incremental', fs.readFileSync(file, 'utf8'), 1);
      try {
        await editRandomly(doc, 1000 + i, 12);
      } finally {
        ws.closeDocument(doc.uri);
      }
    }
  });

  it('moves a reused statement when text is inserted above it', async () => {
    const ws = await workspace();
    const doc = ws.openDocument(uriOf('/tmp/incremental-move.tn'), 'let a = 1;\nlet b = a + undefinedName;\n', 1);
    try {
      doc.analysis();
      doc.applyChanges([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '// a comment\n' }], 2);
      await assertSameAsFresh(doc, 'after inserting a line');
      assert.deepEqual(doc.loweringReuse, { reused: 2, lowered: 0 });
      const [d] = documentDiagnostics(doc);
      assert.equal(d.range.start.line, 2, 'the unknown name is reported on its new line');
    } finally {
      ws.closeDocument(doc.uri);
    }
  });
});
