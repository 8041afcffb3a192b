// Why the first timer of a `turn run` fired 100-600 ms late on a busy machine (issue 26): V8
// compiles WebAssembly with its baseline compiler (Liftoff) and, once a function has run enough,
// recompiles it with TurboFan in the background ("dynamic tiering"). Parsing one file makes the
// grammar's generated lexer and parse loop hot, so right after the parse V8 starts optimising those
// very large functions; the program's first wait then sat behind that job (on two busy cores, for
// hundreds of milliseconds) although the parser never runs again in a `turn run`.
//
// A tiering budget no parse reaches keeps the grammar on Liftoff code: no background job, a
// slightly slower parser (tree-sitter parses a file of thousands of lines in milliseconds either
// way), and timers that fire at their time from the first one on. The flag is V8's own; it must be
// set before the module is compiled, and a V8 that does not know it ignores it.
import * as v8 from 'node:v8';

let settled = false;

export function keepWasmOnBaselineTier(): void {
  if (settled) return;
  settled = true;
  v8.setFlagsFromString('--wasm-tiering-budget=2000000000');
}
