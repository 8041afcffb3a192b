// The names closure literals are compiled under. A process is named by the function at the bottom
// of its stack (the run panel's `worker #3`), and a stack trace by each frame's, so a literal that
// has no `let` name of its own takes the nearest name that says what it does:
//
//   let analyst = turn(role: Str) -> Any { return turn() { ... }; };   // the inner one: `analyst`
//   spawn turn() { return review(doc); };                              // `review`
//   spawn_link turn() { return call(work, ctx); };                     // `work`
//
// Anything else keeps the generic name (`spawned`, `anonymous`).
import type { Closure, Expr } from '../syntax/ast.js';

/** Names no better than none: a closure returned from one of these keeps its own generic name. */
const GENERIC = new Set(['anonymous', 'spawned', 'invoked', 'infer', 'main']);

/** The name of a closure literal returned from the function `enclosing`: the enclosing function's (a factory names what it makes). */
export function returnedClosureName(enclosing: string): string {
  return GENERIC.has(enclosing) || enclosing.startsWith('<') ? 'anonymous' : enclosing;
}

/** The function a closure's body only calls (`return f(x);` or `call(f, x);`), or null. */
function onlyCallee(c: Closure): string | null {
  const body = c.body.body;
  if (body.length !== 1) return null;
  const s = body[0];
  const e: Expr | undefined = s.kind === 'Return' ? s.value : s.kind === 'ExprStmt' ? s.expr : undefined;
  if (!e) return null;
  if (e.kind === 'Call' && e.callee.kind === 'Identifier') return e.callee.name;
  if (e.kind === 'CallBuiltin' && e.target.kind === 'Identifier') return e.target.name;
  return null;
}

/** The name of a closure literal that is spawned: the function its body only calls, else `spawned`. */
export function spawnedClosureName(c: Closure): string {
  return onlyCallee(c) ?? 'spawned';
}
