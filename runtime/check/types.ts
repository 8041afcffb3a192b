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
  | { kind: 'Map'; api?: ApiShape }
  | { kind: 'List'; element: StaticType }
  | { kind: 'Struct'; name: string }
  | { kind: 'Enum'; values: string[] }
  | { kind: 'Closure'; params: StaticType[]; result: StaticType };

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

export interface ApiOperation {
  /** in call order: the authority first, then the operation's parameters (then `body`) */
  params: { name: string; type: StaticType }[];
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
 * side passes; `null` passes anywhere (Turn v1 has no non-null types); structural for lists.
 */
export function isAssignable(actual: StaticType, expected: StaticType): boolean {
  if (actual.kind === 'Any' || expected.kind === 'Any' || actual.kind === 'Null') return true;
  switch (expected.kind) {
    case 'List':
      return actual.kind === 'List' && isAssignable(actual.element, expected.element);
    case 'Struct':
      return actual.kind === 'Struct' && actual.name === expected.name;
    case 'Enum':
      return actual.kind === 'Str' || actual.kind === 'Enum';
    case 'Str':
      return actual.kind === 'Str' || actual.kind === 'Enum';
    case 'Closure':
      return actual.kind === 'Closure';
    case 'Void':
      return true;
    default:
      return actual.kind === expected.kind;
  }
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
        case 'Map':
        case 'Any':
          return { kind: t.name };
        case 'List':
          return { kind: 'List', element: t.args[0] ? resolveType(t.args[0], scope, typeParams) : ANY };
        default:
          return scope.lookupNamed(t.name) ?? ANY;
      }
    }
  }
}
