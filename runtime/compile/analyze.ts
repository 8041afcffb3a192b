// Scope analysis run before code generation: for every function (a unit's top level, a closure,
// an `impl` method) the names it binds (`let` binds in the enclosing function's scope, hoisted),
// the names inner closures capture (those live in cells) and the names a nested function binds
// that also exist outside it (initialized from the outer value on entry, as Turn v1's copied
// environments behave).
import type { Closure, InferExpr, Stmt } from '../syntax/ast.js';
import { walk, type WalkVisitor } from '../syntax/walk.js';

export interface FnInfo {
  declared: Set<string>;
  params: string[];
  captured: Set<string>;
  /** struct field names visible as plain names (impl methods) */
  fields: Set<string> | null;
  shadowInit: Set<string>;
}

export class Analyzer {
  readonly infos = new Map<object, FnInfo>();

  constructor(private readonly structFields: (name: string) => string[] | undefined) {}

  analyzeProgram(key: object, body: Stmt[]): FnInfo {
    return this.analyzeFunction(key, [], body, null, []);
  }

  private analyzeFunction(key: object, params: string[], body: Stmt[], fields: Set<string> | null, chain: FnInfo[]): FnInfo {
    const info: FnInfo = { declared: new Set(params), params, captured: new Set(), fields, shadowInit: new Set() };
    this.infos.set(key, info);
    // What this function binds: its `let`s and `catch` names, not those of nested functions.
    const declare: WalkVisitor = (n, role) => {
      if (role !== 'code' || n.kind === 'Closure' || n.kind === 'Impl') return false;
      if (n.kind === 'Infer' && inferScope(n)) {
        // its block is its own scope (below); its options are evaluated outside it
        for (const o of n.options ?? []) walk(o.value, declare);
        return false;
      }
      if (n.kind === 'Let') info.declared.add(n.name.name);
      if (n.kind === 'Try') info.declared.add(n.param.name);
      return true;
    };
    for (const s of body) walk(s, declare);
    if (chain.length > 0) {
      for (const name of info.declared) {
        if (params.includes(name)) continue;
        if (fields?.has(name) || resolveRef(name, chain, chain.length)) info.shadowInit.add(name);
      }
    }
    const inner = [...chain, info];
    // What it reads: names in expressions (not declared names, members, fields or types).
    const visit: WalkVisitor = (n, role) => {
      if (role !== 'code') return false;
      if (n.kind === 'Identifier') {
        resolveRef(n.name, inner, inner.length - 1);
        return false;
      }
      if (n.kind === 'Closure') {
        this.analyzeClosure(n, null, inner, false);
        return false;
      }
      if (n.kind === 'Infer') {
        const scope = inferScope(n);
        if (scope) {
          for (const o of n.options ?? []) walk(o.value, visit);
          this.analyzeClosure(scope, null, inner, false);
          return false;
        }
      }
      if (n.kind === 'Impl') {
        const fieldNames = new Set(this.structFields(n.typeName.name) ?? []);
        for (const m of n.methods) {
          if (m.value.kind === 'Closure') this.analyzeClosure(m.value, fieldNames, inner, true);
          else walk(m.value, visit);
        }
        return false;
      }
      return true;
    };
    for (const s of body) walk(s, visit);
    return info;
  }

  private analyzeClosure(n: Closure, fields: Set<string> | null, chain: FnInfo[], method: boolean): void {
    const params = n.params.map((p) => p.name.name);
    this.analyzeFunction(n, method ? ['self', ...params] : params, n.body.body, fields, chain);
  }
}

/** Resolves `name` in `chain` (innermost last); marks it captured where found below `from`. */
function resolveRef(name: string, chain: FnInfo[], from: number): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const info = chain[i];
    if (info.declared.has(name)) {
      if (i < from) info.captured.add(name);
      return true;
    }
    if (info.fields?.has(name)) {
      if (i < from) info.captured.add('self');
      return true;
    }
  }
  return false;
}

const inferScopes = new WeakMap<InferExpr, Closure | null>();

/**
 * The scope of an `infer` block's statements (LANGUAGE.md §1: they run in the block's own scope):
 * a block that binds names (`let`, `catch`) and ends with its prompt is compiled as a closure of no
 * parameters, called on the spot, that returns the prompt — so its names stay inside it, initialised
 * from the enclosing function's values as any closure's are. Null for a block that binds nothing.
 */
export function inferScope(e: InferExpr): Closure | null {
  const known = inferScopes.get(e);
  if (known !== undefined) return known;
  const body = e.body.body;
  const last = body[body.length - 1];
  let binds = false;
  const find: WalkVisitor = (n, role) => {
    if (role !== 'code' || n.kind === 'Closure' || n.kind === 'Impl' || binds) return false;
    if (n.kind === 'Let' || n.kind === 'Try') binds = true;
    return !binds;
  };
  for (const st of body) walk(st, find);
  const scope: Closure | null = binds && last?.kind === 'ExprStmt'
    ? {
        kind: 'Closure',
        params: [],
        body: { kind: 'Block', body: [...body.slice(0, -1), { kind: 'Return', value: last.expr, span: last.span }], span: e.body.span },
        span: e.body.span,
      }
    : null;
  inferScopes.set(e, scope);
  return scope;
}
