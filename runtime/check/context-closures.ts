// A closure that appends to `context` keeps what it appended in the calling process's context, so
// every later call of it in the same process sees the text of the earlier ones (docs/language.md,
// *Context*). That surprises anyone used to functions whose prompt is their own (BAML's). Where
// such a closure is called more than once in a process — twice, or in a loop — each plain call is
// warned about; `invoke f(...)` runs a call on a snapshot of the context, which it then drops, and
// the language server offers it as the fix (language-server/code-actions.ts).
import type * as A from '../syntax/ast.js';
import type { Diagnostic } from '../diagnostics.js';
import { forEachChild, walk } from '../syntax/walk.js';

export const CONTEXT_CLOSURE_CODE = 'closure-context';

/** Whether the closure's own body (not closures inside it) appends to `context`. */
function appendsToContext(c: A.Closure): boolean {
  let found = false;
  walk(c.body, (n) => {
    if (found || n.kind === 'Closure') return false;
    if (n.kind === 'Context' && n.op === 'append') found = true;
    return undefined;
  });
  return found;
}

/** The name a call calls: `f(x)` or `call(f, x)`. */
function calledName(n: A.Node): A.Identifier | undefined {
  if (n.kind === 'Call' && n.callee.kind === 'Identifier') return n.callee;
  if (n.kind === 'CallBuiltin' && n.target.kind === 'Identifier') return n.target;
  return undefined;
}

/** Every `let` statement of the program, at any depth. */
function letsOf(program: A.Program): A.LetStmt[] {
  const lets: A.LetStmt[] = [];
  walk(program, (n) => {
    if (n.kind === 'Let') lets.push(n);
  });
  return lets;
}

export function contextClosureWarnings(program: A.Program, lets: readonly A.LetStmt[] = letsOf(program)): Diagnostic[] {
  // names bound once, to a closure that appends to context
  const bindings = new Map<string, number>();
  const appending = new Set<string>();
  for (const n of lets) {
    bindings.set(n.name.name, (bindings.get(n.name.name) ?? 0) + 1);
    if (n.value.kind === 'Closure' && appendsToContext(n.value)) appending.add(n.name.name);
  }
  for (const [name, count] of bindings) if (count > 1) appending.delete(name);
  if (appending.size === 0) return [];

  // their plain calls (not under `invoke`) in each process (the program's, or a spawned or task
  // body's: each has its own context), and whether one sits in a loop
  const calls = new Map<string, { call: A.Node; name: string }[]>();
  const inLoop = new Set<string>();
  const processes = new Map<A.Node, number>([[program, 0]]);
  const stack: { node: A.Node; loop: boolean; invoked: boolean; proc: number }[] = [{ node: program, loop: false, invoked: false, proc: 0 }];
  while (stack.length > 0) {
    const { node, loop, invoked, proc } = stack.pop()!;
    const name = calledName(node);
    if (name && appending.has(name.name) && !invoked) {
      const key = `${proc} ${name.name}`;
      calls.set(key, [...(calls.get(key) ?? []), { call: node, name: name.name }]);
      if (loop) inLoop.add(key);
    }
    const startsProcess = node.kind === 'Spawn' || node.kind === 'SpawnEach' || node.kind === 'Task' || node.kind === 'Detach';
    forEachChild(node, (child) => {
      const childLoop = loop || (node.kind === 'While' && child === node.body);
      let childProc = proc;
      if (startsProcess) {
        childProc = processes.size;
        processes.set(child, childProc);
      }
      // `invoke f(x)`: the call itself runs on a snapshot; calls in its arguments do not
      stack.push({ node: child, loop: startsProcess ? false : childLoop, invoked: node.kind === 'Invoke' && child === node.call, proc: childProc });
    });
  }
  const out: Diagnostic[] = [];
  for (const [key, sites] of calls) {
    const name = sites[0].name;
    if (sites.length < 2 && !inLoop.has(key)) continue;
    for (const { call } of sites) {
      out.push({
        severity: 'warning',
        span: call.span,
        code: CONTEXT_CLOSURE_CODE,
        message: `\`${name}\` appends to \`context\`, and it is called more than once in this process: each call keeps its text in the context the next call sees\nhint: \`invoke ${name}(...)\` gives each call a context of its own`,
      });
    }
  }
  return out.sort((a, b) => a.span.start - b.span.start);
}
