// The debugger port: what the VM sees of an attached debugger (the `// debugger hook` lines in
// runtime/vm/index.ts). runtime/vm/debug.ts implements it.
import type { ProcessRef } from './effect.js';

export interface DebugHook {
  /** non-null while the debugger holds the run: the scheduler awaits it before the next slice */
  paused: Promise<void> | null;
  /** a trap at `ip` of prototype `proto` in `p`: true = the original opcode is back, run it */
  trap(p: ProcessRef, proto: number, ip: number): boolean;
}
