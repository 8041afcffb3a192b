// Diagnostics parity: the language server's diagnostics (incrementally parsed tree → lowerProgram →
// the analyzer) equal `checkSource`'s and `turn check`'s on every fixture and conformance program,
// also after incremental edits.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkSource } from '../../runtime/check/index.js';
import { analyze } from '../../runtime/check/analyze.js';
import { indexProgram } from '../../runtime/check/symbols.js';
import { toLspDiagnostics } from '../../language-server/diagnostics.js';
import { documentDiagnostics } from '../../language-server/validate.js';
import type { TurnDocument } from '../../language-server/document.js';
import { allTurnFiles, uriOf, workspace } from './helpers.js';
import { ROOT, turn } from '../cli/run-cli.js';

async function expected(doc: TurnDocument) {
  const checked = await checkSource(doc.path, doc.text);
  return toLspDiagnostics(checked.file, checked.diagnostics);
}

const files = allTurnFiles();

describe('diagnostics parity with turn check', () => {
  it('covers the fixtures, the examples and the conformance programs', () => {
    assert.ok(files.length >= 25, `only ${files.length} files`);
    for (const dir of ['language-server/fixtures/', 'examples/', 'conformance/programs/']) {
      assert.ok(files.some((f) => f.includes(dir)), `no files from ${dir}`);
    }
    // programs with compile errors too, so parity covers diagnostics, not only clean files
    assert.ok(files.some((f) => f.endsWith('compile_error_names.tn')));
  });

  for (const file of files) {
    it(`matches checkSource on ${file.split('/').slice(-2).join('/')}`, async () => {
      const ws = await workspace();
      const doc = ws.openDocument(uriOf(file) + '#parity', fs.readFileSync(file, 'utf8'), 1);
      try {
        await doc.prepareSchemas();
        assert.deepEqual(documentDiagnostics(doc), await expected(doc));
      } finally {
        ws.closeDocument(doc.uri);
      }
    });
  }

  it('matches checkSource after incremental edits (deletions, insertions, emoji)', async () => {
    const ws = await workspace();
    for (const file of files) {
      const doc = ws.openDocument(uriOf(file) + '#edits', fs.readFileSync(file, 'utf8'), 1);
      try {
        let version = 1;
        // Deterministic edits spread over the file: delete a character, insert a brace, insert an emoji.
        for (let k = 1; k <= 6; k++) {
          const offset = Math.floor((doc.text.length * k) / 7);
          const pos = doc.file.utf16Position(offset);
          const end = doc.file.utf16Position(Math.min(doc.text.length, offset + 1));
          const text = ['', '{', '😀', ';', '', '"'][k - 1];
          doc.applyChanges([{ range: { start: pos, end: k % 2 ? end : pos }, text }], ++version);
          await doc.prepareSchemas();
          assert.deepEqual(documentDiagnostics(doc), await expected(doc), `${file} after edit ${k}`);
        }
      } finally {
        ws.closeDocument(doc.uri);
      }
    }
  });

  it('builds the symbol index from an analyzer run whose diagnostics are the plain run’s', async () => {
    for (const file of files) {
      const { program } = await checkSource(file, fs.readFileSync(file, 'utf8'));
      assert.deepEqual(indexProgram(program).diagnostics, analyze(program).diagnostics, file);
    }
  });

  it('prints the same FILE:LINE:COL lines as the `turn check` command', async () => {
    const ws = await workspace();
    const ours = new Map<string, string[]>();
    let errors = false;
    for (const file of files) {
      const doc = ws.openDocument(uriOf(file) + '#cli', fs.readFileSync(file, 'utf8'), 1);
      try {
        await doc.prepareSchemas();
        const diagnostics = doc.analysis().diagnostics;
        errors ||= diagnostics.some((d) => d.severity === 'error');
        ours.set(
          file,
          diagnostics.map((d) => {
            const { line, column } = doc.file.position(d.span.start);
            return `${file}:${line}:${column}: ${d.severity === 'error' ? '' : d.severity + ': '}${d.message}`;
          }),
        );
      } finally {
        ws.closeDocument(doc.uri);
      }
    }
    // one command checks every file (each as `turn check FILE` would: the same checkOne), instead of a process per file
    const cli = turn(['check', ...files]);
    // `note: launches ...` is the command's account of its own --allow-run grants (cli/launches.ts),
    // not a diagnostic of the program: the editor grants through its settings, at run time
    const lines = cli.stderr.split('\n').filter((l) => !/^\S+:\d+:\d+: note: launches /.test(l));
    for (const file of files) {
      // the command names a file under its working directory (the clone's root) by its relative path
      const shown = path.relative(ROOT, file);
      const theirs = lines.filter((l) => l.startsWith(shown + ':')).map((l) => file + l.slice(shown.length));
      assert.deepEqual(ours.get(file), theirs, file);
    }
    const mine = new Set(files.map((f) => path.relative(ROOT, f) + ':'));
    assert.deepEqual(lines.filter((l) => l.trim() && ![...mine].some((m) => l.startsWith(m))), [], 'nothing but the files\' diagnostics');
    assert.equal(cli.code !== 0, errors, `exit ${cli.code}: an error in some file, and only then`);
  });
});
