// Why a run could not start (or resume): each kind says who must act, and the CLI maps it to an
// exit code (usage 64, input and compile 2, the rest 1). Never a JavaScript stack for a user error.
import type { FileDiagnostic } from '../load.js';
import type { RunRecord } from '../store/types.js';

export type SetupErrorKind =
  /** an option is wrong (an unknown model spec, a bad approval mode, a trace file that cannot be written) */
  | 'usage'
  /** a file the run needs cannot be read (the program, a script fixture, the secrets file) */
  | 'input'
  /** the program does not compile: `diagnostics` says where */
  | 'compile'
  /** the store cannot be opened or read, or the run is not in it */
  | 'store'
  /** the run cannot be resumed (it has ended, or another VM's semantics) */
  | 'refused';

export class RunSetupError extends Error {
  override name = 'RunSetupError';
  /** the stored run, when a resume was refused because it has ended */
  run?: RunRecord;
  constructor(
    readonly kind: SetupErrorKind,
    message: string,
    readonly diagnostics: FileDiagnostic[] = [],
  ) {
    super(message);
  }
}
