// The debugger port: what the VM sees of an attached debugger (the `// debugger hook` lines in
// runtime/vm/index.ts). runtime/vm/debug.ts implements it.
import type { ProcessRef } from './effect.js';
import type { Value } from '../values/index.js';

export interface DebugHook {
  /** non-null while the debugger holds the run: the scheduler awaits it before the next slice */
  paused: Promise<void> | null;
  /**
   * A trap at `ip` of prototype `proto` in `p`: true = the original opcode is back, run it; false =
   * `p` stops on the trap (the VM yields it, and it goes on first, with the rest of its slice, so a
   * stop never changes the order processes run in).
   */
  trap(p: ProcessRef, proto: number, ip: number): boolean;
  /** `value` is raised in `p` before it unwinds (`caught`: a `catch` of `p` will take it): exception breakpoints. */
  raised(p: ProcessRef, value: Value, caught: boolean): void;
}
