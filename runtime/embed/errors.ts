// The one error an embedding app catches from the library: why a run could not start, resume or be
// called, with who must act (`kind`) and, for a program that does not compile, its located
// diagnostics as `FILE:LINE:COL: message` lines. Never a JavaScript stack for a user's mistake.
import { formatDiagnostic } from '../diagnostics.js';
import { RunSetupError } from '../run/errors.js';

export type EmbedErrorKind =
  /** an option is wrong */
  | 'usage'
  /** a file cannot be read */
  | 'input'
  /** the program does not compile (`diagnostics` says where) */
  | 'compile'
  /** the store cannot be opened or read, or the run is not in it */
  | 'store'
  /** the run cannot be resumed */
  | 'refused'
  /** a call's arguments or result do not fit the declared types (a generated client's boundary) */
  | 'invalid'
  /** a call's run ended without a value (TurnCallError holds the result) */
  | 'run';

export class TurnError extends Error {
  override name = 'TurnError';
  constructor(
    readonly kind: EmbedErrorKind,
    message: string,
    /** located diagnostics, `FILE:LINE:COL: message` */
    readonly diagnostics: string[] = [],
  ) {
    super(diagnostics.length > 0 ? `${message}\n${diagnostics.join('\n')}` : message);
  }
}

/** The library's internal name for it. */
export { TurnError as EmbedError };

/** A RunSetupError as a TurnError; anything else is thrown on. */
export function asTurnError(e: unknown): never {
  if (e instanceof RunSetupError) {
    throw new TurnError(
      e.kind,
      e.message,
      e.diagnostics.filter((d) => d.diagnostic.severity === 'error').map((d) => formatDiagnostic(d.file, d.diagnostic)),
    );
  }
  throw e;
}
