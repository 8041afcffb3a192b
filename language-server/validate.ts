// Checks one document and returns the LSP diagnostics to publish for it.
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../runtime/index.js';
import { DIAGNOSTIC_SOURCE, toLspDiagnostics } from './diagnostics.js';
import type { PositionSource } from './diagnostics.js';
import { uriToPath } from './uri.js';
import type { TurnDocument } from './document.js';

/** The runtime checker's shape: `checkSource` in runtime/check/index.ts. */
export type CheckFn = (path: string, text: string) => Promise<{ diagnostics: Diagnostic[]; file: PositionSource }>;

/**
 * Runs `check` on the document's current text. A checker that throws is reported as one error at the
 * top of the file (code `internal`) rather than leaving stale diagnostics or killing the server.
 */
export async function validateDocument(document: Pick<TextDocument, 'uri' | 'getText'>, check: CheckFn): Promise<LspDiagnostic[]> {
  try {
    const { diagnostics, file } = await check(uriToPath(document.uri), document.getText());
    return toLspDiagnostics(file, diagnostics);
  } catch (err) {
    return internalError(err);
  }
}

/**
 * The diagnostics of a document model: its incrementally parsed tree, lowered and analyzed exactly
 * as `checkSource` does (see `analyzeTree` in document.ts), so they equal `turn check`'s.
 */
export function documentDiagnostics(doc: TurnDocument): LspDiagnostic[] {
  try {
    const { diagnostics, file } = doc.analysis();
    return toLspDiagnostics(file, diagnostics);
  } catch (err) {
    return internalError(err);
  }
}

function internalError(err: unknown): LspDiagnostic[] {
  const message = err instanceof Error ? err.message : String(err);
  return [
    {
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      severity: DiagnosticSeverity.Error,
      code: 'internal',
      source: DIAGNOSTIC_SOURCE,
      message: `Turn checker failed: ${message}`,
    },
  ];
}
