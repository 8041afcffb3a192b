// Converts the runtime's diagnostics (UTF-16 offset spans) into LSP diagnostics (0-based line and
// UTF-16 character positions). Pure: no connection, no document store.
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { Diagnostic as LspDiagnostic, Range } from 'vscode-languageserver';
import type { Diagnostic, Severity } from '../runtime/index.js';

/** What the conversion needs from `SourceFile` (runtime/syntax/source.ts). */
export interface PositionSource {
  readonly text: string;
  utf16Position(offset: number): { line: number; character: number };
}

/** The `source` field of every diagnostic the server publishes. */
export const DIAGNOSTIC_SOURCE = 'turn';

export function toLspSeverity(severity: Severity): DiagnosticSeverity {
  switch (severity) {
    case 'error':
      return DiagnosticSeverity.Error;
    case 'warning':
      return DiagnosticSeverity.Warning;
    case 'info':
      return DiagnosticSeverity.Information;
  }
}

/** A span as an LSP range; offsets are clamped into the text and `end` is never before `start`. */
export function spanToRange(file: PositionSource, start: number, end: number): Range {
  const clamp = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.min(Math.trunc(n), file.text.length)) : 0);
  const s = clamp(start);
  const e = Math.max(s, clamp(end));
  return { start: file.utf16Position(s), end: file.utf16Position(e) };
}

export function toLspDiagnostic(file: PositionSource, d: Diagnostic): LspDiagnostic {
  return {
    range: spanToRange(file, d.span.start, d.span.end),
    severity: toLspSeverity(d.severity),
    code: d.code,
    source: DIAGNOSTIC_SOURCE,
    message: d.message,
  };
}

export function toLspDiagnostics(file: PositionSource, diagnostics: readonly Diagnostic[]): LspDiagnostic[] {
  return diagnostics.map((d) => toLspDiagnostic(file, d));
}
