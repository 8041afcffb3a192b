// The symbol index: every definition and reference in one file, the function scopes with the names
// each one sees, and the static type of each expression. Names are resolved by the analyzer itself
// (analyze.ts, through its observer hooks), so the editor's "go to definition" follows exactly the
// rules `turn check` uses: `let` binds in the enclosing function, closures see enclosing functions,
// `impl` methods see their struct's fields and `self`. Struct, field, method and type references
// are found from the analyzer's struct table and expression types.
import type * as A from '../syntax/ast.js';
import type { Diagnostic } from '../diagnostics.js';
import { analyze, type Binding, type FunctionScope, type StructInfo } from './analyze.js';
import { walk } from '../syntax/walk.js';
import { ANY, BUILTIN_TYPE_NAMES, typeToString, type StaticType } from './types.js';

export type SymbolKind = 'variable' | 'function' | 'parameter' | 'struct' | 'field' | 'method' | 'typeAlias' | 'self';

export interface SymbolDef {
  id: number;
  name: string;
  kind: SymbolKind;
  /** The defining identifier. */
  nameSpan: A.Span;
  /** The whole declaration (the `let`, the struct, the field, the parameter). */
  span: A.Span;
  /** For fields and methods: the struct's name. */
  container?: string;
  /** The static type as the analyzer knows it at the end of the file (Any when unknown). */
  type: StaticType;
  /** The scope a variable, function or parameter is bound in; undefined for global symbols. */
  scope?: ScopeInfo;
  /** The declaring node: a `let`, parameter, struct, field, alias, or the `try` of a `catch` name. */
  decl?: A.LetStmt | A.Param | A.StructDecl | A.FieldDecl | A.TypeAliasDecl | A.TryStmt;
}

export type RefRole = 'definition' | 'write' | 'read';

export interface SymbolRef {
  span: A.Span;
  symbol: SymbolDef;
  role: RefRole;
}

export interface ScopeInfo {
  /** The program or the closure (an `impl` method is a closure) that owns the scope. */
  owner: A.Program | A.Closure;
  span: A.Span;
  parent?: ScopeInfo;
  /** Names bound in this function (let, parameters, catch). */
  names: Map<string, SymbolDef>;
  /** Inside an `impl` method: the struct whose fields (and `self`) are visible as plain names. */
  receiver?: string;
}

/** `lib.member` where `lib` is bound once to `use "path"`: a reference into another file. */
export interface ModuleMemberRef {
  span: A.Span;
  member: string;
  use: A.UseExpr;
}

export interface SymbolIndex {
  program: A.Program;
  symbols: SymbolDef[];
  /** Every reference, definitions included, sorted by start offset. */
  refs: SymbolRef[];
  scopes: ScopeInfo[];
  structs: Map<string, StructInfo>;
  aliases: Map<string, A.TypeAliasDecl>;
  /** Struct and alias symbols by name. */
  types: Map<string, SymbolDef>;
  /** Field symbols by `Struct.field`, method symbols by `Struct#method`. */
  members: Map<string, SymbolDef>;
  exprTypes: Map<A.Expr, StaticType>;
  moduleRefs: ModuleMemberRef[];
  /** Each `use "path"` bound once to a name: the name's symbol → the use. */
  moduleBindings: Map<SymbolDef, A.UseExpr>;
}

export interface IndexResult {
  index: SymbolIndex;
  /** Exactly `analyze(program).diagnostics`: the index is built from the same run. */
  diagnostics: Diagnostic[];
}

/**
 * Analyzes `program` once and indexes it. `imports`: what it takes from its modules (a
 * CheckResult's `imports`), so that types and members from other files are known here too.
 */
export function indexProgram(program: A.Program, imports?: { types: (A.StructDecl | A.TypeAliasDecl | A.ImplDecl)[]; values: ReadonlyMap<A.UseExpr, StaticType> }): IndexResult {
  const symbols: SymbolDef[] = [];
  const refs: SymbolRef[] = [];
  const scopes: ScopeInfo[] = [];
  const exprTypes = new Map<A.Expr, StaticType>();
  const byBinding = new Map<Binding, SymbolDef>();
  const scopeOf = new Map<FunctionScope, ScopeInfo>();
  const types = new Map<string, SymbolDef>();
  const members = new Map<string, SymbolDef>();
  const methods = new Map<string, SymbolDef>();
  const aliases = new Map<string, A.TypeAliasDecl>();
  const selfSymbols = new Map<string, SymbolDef>();

  const add = (def: Omit<SymbolDef, 'id'>): SymbolDef => {
    const s = { ...def, id: symbols.length };
    symbols.push(s);
    return s;
  };

  // Global symbols: structs, their fields, aliases, impl methods (first declaration wins, as in the analyzer).
  for (const s of program.body) {
    if (s.kind === 'Struct' && !types.has(s.name.name)) {
      types.set(s.name.name, add({ name: s.name.name, kind: 'struct', nameSpan: s.name.span, span: s.span, type: { kind: 'Struct', name: s.name.name }, decl: s }));
      for (const f of s.fields) {
        const key = `${s.name.name}.${f.name.name}`;
        if (!members.has(key)) members.set(key, add({ name: f.name.name, kind: 'field', nameSpan: f.name.span, span: f.span, container: s.name.name, type: ANY, decl: f }));
      }
    } else if (s.kind === 'TypeAlias' && !types.has(s.name.name)) {
      aliases.set(s.name.name, s);
      types.set(s.name.name, add({ name: s.name.name, kind: 'typeAlias', nameSpan: s.name.span, span: s.span, type: ANY, decl: s }));
    }
  }
  for (const s of program.body) {
    if (s.kind !== 'Impl' || types.get(s.typeName.name)?.kind !== 'struct') continue;
    for (const m of s.methods) {
      const key = `${s.typeName.name}.${m.name.name}`;
      if (!methods.has(key) && m.value.kind === 'Closure') {
        methods.set(key, add({ name: m.name.name, kind: 'method', nameSpan: m.name.span, span: m.span, container: s.typeName.name, type: ANY, decl: m }));
      }
    }
  }

  const symbolFor = (b: Binding, scope: ScopeInfo | undefined): SymbolDef | undefined => {
    const known = byBinding.get(b);
    if (known) return known;
    const o = b.origin;
    if (!o) return undefined;
    let def: SymbolDef | undefined;
    switch (o.kind) {
      case 'let':
        def = add({
          name: o.stmt.name.name,
          kind: o.stmt.value.kind === 'Closure' && b.bindings === 1 ? 'function' : 'variable',
          nameSpan: o.stmt.name.span,
          span: o.stmt.span,
          type: b.type,
          scope,
          decl: o.stmt,
        });
        break;
      case 'param':
        def = add({ name: o.param.name.name, kind: 'parameter', nameSpan: o.param.name.span, span: o.param.span, type: b.type, scope, decl: o.param });
        break;
      case 'catch':
        def = add({ name: o.stmt.param.name, kind: 'variable', nameSpan: o.stmt.param.span, span: o.stmt.param.span, type: b.type, scope, decl: o.stmt });
        break;
      case 'field':
        return members.get(`${o.struct.decl.name.name}.${o.name}`);
      case 'self': {
        const name = o.struct.decl.name.name;
        let self = selfSymbols.get(name);
        if (!self) {
          self = add({ name: 'self', kind: 'self', nameSpan: o.struct.decl.name.span, span: o.struct.decl.span, container: name, type: b.type });
          selfSymbols.set(name, self);
        }
        return self;
      }
    }
    byBinding.set(b, def);
    return def;
  };

  // Struct and alias names written in types, struct literals and `impl`s; fields and methods after `.`.
  const typeRef = (name: string, span: A.Span) => {
    const def = types.get(name);
    if (def && !BUILTIN_TYPE_NAMES.has(name)) refs.push({ span, symbol: def, role: 'read' });
  };
  const typeRefs = (t: A.TypeExpr | undefined): void => {
    if (!t) return;
    walk(t, (n) => {
      if (n.kind === 'NamedType') typeRef(n.name, { start: n.span.start, end: n.span.start + n.name.length });
    });
  };
  for (const s of program.body) {
    if (s.kind === 'Struct') s.fields.forEach((f) => typeRefs(f.type));
    else if (s.kind === 'TypeAlias') typeRefs(s.type);
    else if (s.kind === 'Impl') {
      typeRef(s.typeName.name, s.typeName.span);
      s.methods.forEach((m) => typeRefs(m.type));
    }
  }
  /** `x.name` whose target is a plain name: possibly a module member, decided once bindings are known. */
  const namedTargets: { target: A.Identifier; name: A.Identifier }[] = [];
  // The analyzer prefers a method over a field of the same name; so does the index (methods are keyed apart).
  const member = (target: A.Expr, name: A.Identifier) => {
    const t = exprTypes.get(target);
    if (t?.kind === 'Struct') {
      const def = methods.get(`${t.name}.${name.name}`) ?? members.get(`${t.name}.${name.name}`);
      if (def) refs.push({ span: name.span, symbol: def, role: 'read' });
    } else if (target.kind === 'Identifier') namedTargets.push({ target, name });
  };

  const result = analyze(
    program,
    {
      enterScope(owner, scope) {
        const info: ScopeInfo = {
          owner,
          span: owner.kind === 'Closure' ? owner.body.span : owner.span,
          parent: scope.parent ? scopeOf.get(scope.parent) : undefined,
          names: new Map(),
          receiver: scope.receiver?.decl.name.name,
        };
        scopeOf.set(scope, info);
        scopes.push(info);
        if (owner.kind === 'Closure') {
          owner.params.forEach((p) => typeRefs(p.type));
          typeRefs(owner.returnType);
        }
        for (const [name, b] of scope.names) {
          const def = symbolFor(b, info);
          if (def) {
            info.names.set(name, def);
            if (def.kind === 'parameter') refs.push({ span: def.nameSpan, symbol: def, role: 'definition' });
            if (b.origin?.kind === 'catch') refs.push({ span: def.nameSpan, symbol: def, role: 'definition' });
          }
        }
      },
      reference(id, b, scope) {
        const def = b ? symbolFor(b, scopeOf.get(scope)) : undefined;
        if (def) refs.push({ span: id.span, symbol: def, role: 'read' });
      },
      let(stmt, b, scope) {
        typeRefs(stmt.type);
        const def = b ? symbolFor(b, scopeOf.get(scope)) : undefined;
        if (def) refs.push({ span: stmt.name.span, symbol: def, role: def.decl === stmt ? 'definition' : 'write' });
      },
      expr(e, type) {
        exprTypes.set(e, type);
        switch (e.kind) {
          case 'Member':
          case 'MethodCall':
            member(e.target, e.name);
            break;
          case 'StructLit':
            typeRef(e.name.name, e.name.span);
            for (const f of e.fields) {
              const def = members.get(`${e.name.name}.${f.name.name}`);
              if (def?.kind === 'field') refs.push({ span: f.name.span, symbol: def, role: 'write' });
            }
            break;
          case 'Infer':
            typeRefs(e.type);
            break;
          default:
            break;
        }
      },
    },
    imports?.types,
    undefined,
    imports?.values,
  );

  // Final types of bindings (the analyzer updates them as it walks).
  for (const [b, def] of byBinding) def.type = b.type;
  for (const [key, def] of methods) members.set(key.replace('.', '#'), def);
  for (const [key, def] of members) {
    const [structName, name] = key.split(/[.#]/);
    const info = result.structs.get(structName);
    if (def.kind === 'field') def.type = info?.fields.get(name) ?? ANY;
    else {
      const sig = info?.methods.get(name);
      if (sig) def.type = { kind: 'Closure', params: sig.params.map((p) => p.type ?? ANY), result: sig.result ?? ANY };
    }
  }

  for (const def of types.values()) refs.push({ span: def.nameSpan, symbol: def, role: 'definition' });
  for (const def of members.values()) refs.push({ span: def.nameSpan, symbol: def, role: 'definition' });

  // Names bound once to `use "path"`, and the `name.member` reads through them.
  const moduleRefs: ModuleMemberRef[] = [];
  const moduleBindings = new Map<SymbolDef, A.UseExpr>();
  const rebound = new Set<SymbolDef>();
  for (const r of refs) if (r.role === 'write') rebound.add(r.symbol);
  for (const def of symbols) {
    const decl = def.decl;
    if (rebound.has(def)) continue;
    if ((def.kind === 'variable' || def.kind === 'function') && decl && 'kind' in decl && decl.kind === 'Let' && decl.value.kind === 'Use') {
      moduleBindings.set(def, decl.value);
    }
  }
  if (moduleBindings.size > 0) {
    const identifierSymbol = new Map<A.Span, SymbolDef>();
    for (const r of refs) if (r.role === 'read') identifierSymbol.set(r.span, r.symbol);
    for (const { target, name } of namedTargets) {
      const sym = identifierSymbol.get(target.span);
      const use = sym && moduleBindings.get(sym);
      if (use) moduleRefs.push({ span: name.span, member: name.name, use });
    }
  }
  const sorted = refs.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  scopes.sort((a, b) => a.span.start - b.span.start);

  return {
    diagnostics: result.diagnostics,
    index: {
      program,
      symbols,
      refs: sorted,
      scopes,
      structs: result.structs,
      aliases,
      types,
      members,
      exprTypes,
      moduleRefs,
      moduleBindings,
    },
  };
}

// ------------------------------------------------------------------------------------ queries

/** The reference (or definition) whose span contains `offset` (its end included, for a cursor after a name). */
export function refAt(index: SymbolIndex, offset: number): SymbolRef | undefined {
  let best: SymbolRef | undefined;
  for (const r of index.refs) {
    if (r.span.start > offset) break;
    if (offset <= r.span.end && (!best || r.span.end - r.span.start <= best.span.end - best.span.start)) best = r;
  }
  return best;
}

export function moduleRefAt(index: SymbolIndex, offset: number): ModuleMemberRef | undefined {
  return index.moduleRefs.find((r) => r.span.start <= offset && offset <= r.span.end);
}

export function referencesOf(index: SymbolIndex, symbol: SymbolDef): SymbolRef[] {
  return index.refs.filter((r) => r.symbol === symbol);
}

/** The innermost function scope containing `offset`. */
export function scopeAt(index: SymbolIndex, offset: number): ScopeInfo | undefined {
  let best: ScopeInfo | undefined;
  for (const s of index.scopes) {
    if (s.span.start <= offset && offset <= s.span.end) {
      if (!best || s.span.end - s.span.start <= best.span.end - best.span.start) best = s;
    }
  }
  return best;
}

/** Every name visible at `offset`, innermost first (a shadowed name appears once); receiver fields included. */
export function visibleNames(index: SymbolIndex, offset: number): SymbolDef[] {
  const out = new Map<string, SymbolDef>();
  for (let s = scopeAt(index, offset); s; s = s.parent) {
    for (const [name, def] of s.names) if (!out.has(name)) out.set(name, def);
    if (s.receiver) {
      for (const [key, def] of index.members) {
        if (def.kind === 'field' && key.startsWith(s.receiver + '.') && !out.has(def.name)) out.set(def.name, def);
      }
      if (!out.has('self')) {
        const struct = index.types.get(s.receiver);
        if (struct) {
          out.set('self', { id: -1, name: 'self', kind: 'self', nameSpan: struct.nameSpan, span: struct.span, container: s.receiver, type: struct.type });
        }
      }
    }
  }
  return [...out.values()];
}

/** Looks a name up from `offset` with the analyzer's rules. */
export function lookupName(index: SymbolIndex, offset: number, name: string): SymbolDef | undefined {
  return visibleNames(index, offset).find((d) => d.name === name);
}

/** The smallest expression containing `offset` whose type the analyzer computed. */
export function typeAt(index: SymbolIndex, offset: number): { expr: A.Expr; type: StaticType } | undefined {
  let best: { expr: A.Expr; type: StaticType } | undefined;
  for (const [expr, type] of index.exprTypes) {
    if (expr.span.start <= offset && offset <= expr.span.end) {
      if (!best || expr.span.end - expr.span.start < best.expr.span.end - best.expr.span.start) best = { expr, type };
    }
  }
  return best;
}

/** Fields and methods of a struct type, as symbols. */
export function membersOf(index: SymbolIndex, structName: string): SymbolDef[] {
  const out: SymbolDef[] = [];
  for (const [key, def] of index.members) if (key.startsWith(structName + '.') || key.startsWith(structName + '#')) out.push(def);
  return out;
}

/** A one-line description of a symbol: `let x: Num`, `field name: Str`, `struct Point`, … */
export function describeSymbol(def: SymbolDef): string {
  const t = typeToString(def.type);
  switch (def.kind) {
    case 'variable':
      return `let ${def.name}: ${t}`;
    case 'function':
      return `let ${def.name}: ${t}`;
    case 'parameter':
      return `(parameter) ${def.name}: ${t}`;
    case 'field':
      return `(field) ${def.container}.${def.name}: ${t}`;
    case 'method':
      return `(method) ${def.container}.${def.name}: ${t}`;
    case 'struct':
      return `struct ${def.name}`;
    case 'typeAlias':
      return `type ${def.name}`;
    case 'self':
      return `self: ${def.container}`;
  }
}
