// Static types of the gradual type checker. `Any` is the unknown type: anything flows to and from it,
// so unannotated code is never rejected, and annotated code is checked where types are known.
import type { TypeExpr } from '../syntax/ast.js';

export type StaticType =
  | { kind: 'Any' }
  | { kind: 'Num' }
  | { kind: 'Str' }
  | { kind: 'Bool' }
  | { kind: 'Null' }
  | { kind: 'Void' }
  | { kind: 'Pid' }
  | { kind: 'Vec' }
  | { kind: 'Identity' }
  /** `value`: `Map<Str, T>`'s T (a plain `Map` has none) */
  | { kind: 'Map'; api?: ApiShape; value?: StaticType; module?: ModuleShape }
  | { kind: 'List'; element: StaticType }
  | { kind: 'Struct'; name: string }
  | { kind: 'Enum'; values: string[] }
  | { kind: 'Closure'; params: StaticType[]; result: StaticType }
  /** `T?`: a T, absent or null */
  | { kind: 'Optional'; inner: StaticType }
  /** `A | B`, at least two members, none a union, an optional or null (those make an Optional) */
  | { kind: 'Union'; members: StaticType[] }
  | { kind: 'Literal'; value: string | number | boolean | null };

/**
 * What the checker knows of an absorbed API (`use schema::...`, runtime/absorb/module.ts): its
 * operations' parameters and result types. The value of `use schema` is such a map with `client`;
 * `client(base)` gives the operations bound to a server.
 */
export interface ApiShape {
  /** the spec as the program names it */
  spec: string;
  operations: Map<string, ApiOperation>;
  /** the module itself (has `client`), or a client's map of operations */
  module: boolean;
  /** the spec names a server, so the module's own operations are bound to it */
  hasDefault: boolean;
  /** what `client(...)` takes (default Str, a base URL; an MCP module takes a URL or a launch map: Any) */
  clientBase?: StaticType;
}

/**
 * What the checker knows of a Turn module's value (`let money = use "./money";`): the members of the
 * map its top level returns, with their types and, for closures, their parameters (runtime/check/modules.ts).
 */
export interface ModuleShape {
  /** the module as the program names it (`./money`), for messages */
  spec: string;
  members: Map<string, ModuleMember>;
}

export interface ModuleMember {
  type: StaticType;
  /** a closure's parameters by name (and declared types), as written in the module */
  sig?: { params: { name: string; type?: StaticType }[]; result?: StaticType };
}

export interface ApiOperation {
  /** in call order: the authority first, then the operation's parameters (then `body`) */
  params: { name: string; type: StaticType; mayLeaveOut?: boolean }[];
  result: StaticType;
}

export const ANY: StaticType = { kind: 'Any' };
export const NUM: StaticType = { kind: 'Num' };
export const STR: StaticType = { kind: 'Str' };
export const BOOL: StaticType = { kind: 'Bool' };
export const NULL: StaticType = { kind: 'Null' };

export const BUILTIN_TYPE_NAMES = new Set(['Num', 'Str', 'Bool', 'List', 'Map', 'Any', 'Void', 'Pid', 'Vec', 'Identity']);

export function typeToString(t: StaticType): string {
  switch (t.kind) {
    case 'List':
      return t.element.kind === 'Any' ? 'List' : `List<${typeToString(t.element)}>`;
    case 'Map':
      return t.value ? `Map<Str, ${typeToString(t.value)}>` : 'Map';
    case 'Optional': {
      const inner = typeToString(t.inner);
      return t.inner.kind === 'Union' || t.inner.kind === 'Closure' || t.inner.kind === 'Enum' ? `(${inner})?` : `${inner}?`;
    }
    case 'Union':
      return t.members.map((m) => (m.kind === 'Closure' ? `(${typeToString(m)})` : typeToString(m))).join(' | ');
    case 'Literal':
      return JSON.stringify(t.value);
    case 'Struct':
      return t.name;
    case 'Enum':
      return t.values.map((v) => JSON.stringify(v)).join(' | ');
    case 'Closure':
      return `(${t.params.map(typeToString).join(', ')}) -> ${typeToString(t.result)}`;
    default:
      return t.kind;
  }
}

/**
 * Whether a value of type `actual` may flow where `expected` is declared. Gradual: `Any` on either
 * side passes; `null` passes anywhere (Turn v1 has no non-null types), and so does a `T?` where a
 * `T` is expected; structural for lists and typed maps; a union flows where each of its members
 * does, and into a union where it fits one member.
 */
export function isAssignable(actual: StaticType, expected: StaticType): boolean {
  if (actual.kind === 'Any' || expected.kind === 'Any' || actual.kind === 'Null') return true;
  if (actual.kind === 'Literal' && actual.value === null) return true;
  if (actual.kind === 'Optional') return isAssignable(actual.inner, expected.kind === 'Optional' ? expected.inner : expected);
  if (expected.kind === 'Optional') return isAssignable(actual, expected.inner);
  if (actual.kind === 'Union') return actual.members.every((m) => isAssignable(m, expected));
  switch (expected.kind) {
    case 'Union':
      return expected.members.some((m) => isAssignable(actual, m));
    case 'List':
      return actual.kind === 'List' && isAssignable(actual.element, expected.element);
    case 'Map':
      if (actual.kind !== 'Map') return false;
      return !actual.value || !expected.value || isAssignable(actual.value, expected.value);
    case 'Struct':
      return actual.kind === 'Struct' && actual.name === expected.name;
    case 'Enum':
      if (actual.kind === 'Literal') return typeof actual.value === 'string' && expected.values.includes(actual.value);
      return actual.kind === 'Str' || actual.kind === 'Enum';
    case 'Literal':
      // What the checker types as a plain Str, Num or Bool may hold the literal (a `"approve"` field from a string).
      if (actual.kind === 'Literal') return actual.value === expected.value;
      if (actual.kind === 'Enum') return actual.values.every((v) => v === expected.value);
      return actual.kind === literalKind(expected.value);
    case 'Str':
      return actual.kind === 'Str' || actual.kind === 'Enum' || (actual.kind === 'Literal' && typeof actual.value === 'string');
    case 'Num':
    case 'Bool':
      return actual.kind === expected.kind || (actual.kind === 'Literal' && literalKind(actual.value) === expected.kind);
    case 'Closure':
      return actual.kind === 'Closure';
    case 'Void':
      return true;
    default:
      return actual.kind === expected.kind;
  }
}

/** The base type of a literal's value. */
export function literalKind(value: string | number | boolean | null): 'Str' | 'Num' | 'Bool' | 'Null' {
  return typeof value === 'string' ? 'Str' : typeof value === 'number' ? 'Num' : typeof value === 'boolean' ? 'Bool' : 'Null';
}

/**
 * `T?` of `t` (idempotent: `T??` is `T?`; `null?` and `Any?` stay what they are), the one way
 * the checker makes an optional.
 */
export function optionalOf(t: StaticType): StaticType {
  if (t.kind === 'Optional' || t.kind === 'Any' || t.kind === 'Null' || (t.kind === 'Literal' && t.value === null)) return t;
  return { kind: 'Optional', inner: t };
}

/**
 * The union of `members`, normalized: nested unions flattened, duplicates dropped, a null member
 * (or an optional one) makes the whole union optional (`Str | null` is `Str?`), one member left is
 * that member, and any `Any` makes it `Any`.
 */
export function unionOf(members: StaticType[]): StaticType {
  const out: StaticType[] = [];
  let nullable = false;
  const add = (m: StaticType): void => {
    if (m.kind === 'Union') return m.members.forEach(add);
    if (m.kind === 'Optional') {
      nullable = true;
      return add(m.inner);
    }
    if (m.kind === 'Null' || (m.kind === 'Literal' && m.value === null)) {
      nullable = true;
      return;
    }
    if (!out.some((o) => sameType(o, m))) out.push(m);
  };
  members.forEach(add);
  if (out.some((m) => m.kind === 'Any')) return ANY;
  const inner: StaticType = out.length === 0 ? NULL : out.length === 1 ? out[0] : { kind: 'Union', members: out };
  return nullable && out.length > 0 ? optionalOf(inner) : inner;
}

/** Structural equality of two types. */
export function sameType(a: StaticType, b: StaticType): boolean {
  return typeToString(a) === typeToString(b);
}

/** `t` without its optionality: what a null test leaves. */
export function nonNull(t: StaticType): StaticType {
  return t.kind === 'Optional' ? t.inner : t;
}

export interface TypeResolver {
  /** Resolves a struct or alias name; undefined when unknown. */
  lookupNamed(name: string): StaticType | undefined;
}

/** Resolves a written type; unknown names resolve to `Any` (the analyzer reports them separately). */
export function resolveType(t: TypeExpr, scope: TypeResolver, typeParams: ReadonlySet<string> = new Set()): StaticType {
  switch (t.kind) {
    case 'EnumType':
      return { kind: 'Enum', values: t.values };
    case 'LiteralType':
      return t.value === null ? NULL : { kind: 'Literal', value: t.value };
    case 'OptionalType':
      return optionalOf(resolveType(t.inner, scope, typeParams));
    case 'UnionType':
      return unionOf(t.members.map((m) => resolveType(m, scope, typeParams)));
    case 'FunctionType':
      return {
        kind: 'Closure',
        params: t.params.map((p) => resolveType(p, scope, typeParams)),
        result: resolveType(t.result, scope, typeParams),
      };
    case 'NamedType': {
      if (typeParams.has(t.name)) return ANY;
      switch (t.name) {
        case 'Num':
        case 'Str':
        case 'Bool':
        case 'Void':
        case 'Pid':
        case 'Vec':
        case 'Identity':
        case 'Any':
          return { kind: t.name };
        case 'Map':
          // `Map<Str, T>`: the keys are strings, T is the values' type
          // and Turn v1's `Map<T>`: the values' type alone
          if (t.args.length === 1) return { kind: 'Map', value: resolveType(t.args[0], scope, typeParams) };
          return t.args.length >= 2 ? { kind: 'Map', value: resolveType(t.args[1], scope, typeParams) } : { kind: 'Map' };
        case 'List':
          return { kind: 'List', element: t.args[0] ? resolveType(t.args[0], scope, typeParams) : ANY };
        default:
          return scope.lookupNamed(t.name) ?? ANY;
      }
    }
  }
}
