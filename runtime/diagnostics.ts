// Diagnostics shared by the compiler front end, `turn check`, and the language server.
import type { Span } from './syntax/ast.js';
import type { SourceFile } from './syntax/source.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  severity: Severity;
  message: string;
  span: Span;
  /** A stable code, e.g. `syntax`, `undefined-name`, `arity`. */
  code: string;
}

/** `FILE:LINE:COL: severity: message`, the format of spec §4 (and of gcc, rustc, tsc --pretty false). */
export function formatDiagnostic(file: SourceFile, d: Diagnostic): string {
  const { line, column } = file.position(d.span.start);
  const prefix = d.severity === 'error' ? '' : `${d.severity}: `;
  return `${file.path}:${line}:${column}: ${prefix}${d.message}`;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
