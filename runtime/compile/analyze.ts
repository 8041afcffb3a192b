// Scope analysis run before code generation: for every function (a unit's top level, a closure,
// an `impl` method) the names it binds (`let` binds in the enclosing function's scope, hoisted),
// the names inner closures capture (those live in cells) and the names a nested function binds
// that also exist outside it (initialized from the outer value on entry, as Turn v1's copied
// environments behave).
import type { Block, Closure, Expr, Stmt } from '../syntax/ast.js';

export interface FnInfo {
  declared: Set<string>;
  params: string[];
  captured: Set<string>;
  /** struct field names visible as plain names (impl methods) */
  fields: Set<string> | null;
  shadowInit: Set<string>;
}

type Walkable = Stmt | Expr | Block;

export function forEachChild(n: Walkable, f: (c: Walkable) => void): void {
  switch (n.kind) {
    case 'Block':
      n.body.forEach(f);
      return;
    case 'Let':
      f(n.value);
      return;
    case 'ExprStmt':
      f(n.expr);
      return;
    case 'Return':
      if (n.value) f(n.value);
      return;
    case 'If':
      f(n.condition);
      f(n.then);
      if (n.else) f(n.else);
      return;
    case 'While':
      f(n.condition);
      f(n.body);
      return;
    case 'Try':
      f(n.body);
      f(n.handler);
      return;
    case 'Throw':
      f(n.value);
      return;
    case 'Impl':
      n.methods.forEach((m) => f(m.value));
      return;
    case 'Entry':
      f(n.body);
      return;
    case 'Struct':
    case 'TypeAlias':
    case 'Suspend':
    case 'Number':
    case 'String':
    case 'Bool':
    case 'Null':
    case 'Identifier':
      return;
    case 'Receive':
      if (n.timeout) f(n.timeout);
      return;
    case 'Use':
      return;
    case 'List':
    case 'Vec':
      n.items.forEach(f);
      return;
    case 'Map':
      n.entries.forEach((e) => f(e.value));
      return;
    case 'StructLit':
      n.fields.forEach((e) => f(e.value));
      if (n.spread) f(n.spread);
      return;
    case 'Closure':
      f(n.body);
      return;
    case 'Binary':
      f(n.left);
      f(n.right);
      return;
    case 'Unary':
      f(n.operand);
      return;
    case 'Index':
      f(n.target);
      f(n.index);
      return;
    case 'Member':
      f(n.target);
      return;
    case 'MethodCall':
      f(n.target);
      n.args.forEach(f);
      return;
    case 'Call':
      f(n.callee);
      n.args.forEach(f);
      return;
    case 'CallBuiltin':
      f(n.target);
      n.args.forEach(f);
      return;
    case 'ListOp':
      f(n.list);
      f(n.fn);
      return;
    case 'UseSchema':
      f(n.source);
      return;
    case 'Grant':
      f(n.name);
      return;
    case 'Infer':
      f(n.body);
      return;
    case 'Confidence':
      f(n.operand);
      return;
    case 'Spawn':
      f(n.body);
      return;
    case 'SpawnEach':
      f(n.list);
      f(n.fn);
      return;
    case 'Gather':
      f(n.operand);
      return;
    case 'Send':
      f(n.pid);
      f(n.message);
      return;
    case 'Remember':
      f(n.key);
      f(n.value);
      return;
    case 'Recall':
      f(n.key);
      return;
    case 'Context':
      f(n.arg);
      return;
    case 'Invoke':
      f(n.call);
      return;
    case 'Scope':
      f(n.body);
      return;
    case 'Task':
    case 'Detach':
      f(n.body);
      return;
  }
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
    const declare = (n: Walkable): void => {
      if (n.kind === 'Closure' || n.kind === 'Impl') return;
      if (n.kind === 'Let') info.declared.add(n.name.name);
      if (n.kind === 'Try') info.declared.add(n.param.name);
      forEachChild(n, declare);
    };
    body.forEach(declare);
    if (chain.length > 0) {
      for (const name of info.declared) {
        if (params.includes(name)) continue;
        if (fields?.has(name) || resolveRef(name, chain, chain.length)) info.shadowInit.add(name);
      }
    }
    const inner = [...chain, info];
    const visit = (n: Walkable): void => {
      if (n.kind === 'Identifier') {
        resolveRef(n.name, inner, inner.length - 1);
        return;
      }
      if (n.kind === 'Closure') {
        this.analyzeClosure(n, null, inner, false);
        return;
      }
      if (n.kind === 'Impl') {
        const fieldNames = new Set(this.structFields(n.typeName.name) ?? []);
        for (const m of n.methods) {
          if (m.value.kind === 'Closure') this.analyzeClosure(m.value, fieldNames, inner, true);
          else visit(m.value);
        }
        return;
      }
      forEachChild(n, visit);
    };
    body.forEach(visit);
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
