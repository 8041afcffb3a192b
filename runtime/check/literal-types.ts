// Literal types where a written type asks for them. The checker types a literal `"medium"` as Str,
// which flows anywhere a Str may; but where the written type is a literal or a string enum
// (`"low" | "high"`), the literal itself is what must fit, so `"medium"` is reported there. The
// same reading finds comparisons that can never be true (`t.priority == "urgent"`).
import type * as A from '../syntax/ast.js';
import { nonNull, typeToString, type StaticType } from './types.js';

/** The literal type of a literal expression (`"x"`, `3`, `-1`, `true`), else undefined. */
export function literalTypeOf(e: A.Expr): StaticType | undefined {
  switch (e.kind) {
    case 'String':
    case 'Number':
    case 'Bool':
      return { kind: 'Literal', value: e.value };
    case 'Unary':
      return e.op === '-' && e.operand.kind === 'Number' ? { kind: 'Literal', value: -e.operand.value } : undefined;
    default:
      return undefined;
  }
}

/** Whether `t` (through optionals and unions) names a literal or a string enum. */
export function asksForLiterals(t: StaticType): boolean {
  const inner = nonNull(t);
  if (inner.kind === 'Literal' || inner.kind === 'Enum') return true;
  return inner.kind === 'Union' && inner.members.some(asksForLiterals);
}

/** The type `e` (analyzed as `t`) is checked as against `expected`: its literal type where `expected` asks for literals. */
export function asWritten(e: A.Expr, t: StaticType, expected: StaticType): StaticType {
  if (!asksForLiterals(expected)) return t;
  return literalTypeOf(e) ?? t;
}

type Base = 'Num' | 'Str' | 'Bool';

/**
 * What a value of type `t` can be, when the checker knows it exactly: a set of literal values, or
 * a base type. Undefined when it could be anything (Any, a struct, a list, an optional...): then
 * nothing is claimed. Optional types are left out on purpose: `x == null` is a test, not a slip.
 */
function valuesOf(t: StaticType): { literals: (string | number | boolean)[] } | { base: Base } | undefined {
  switch (t.kind) {
    case 'Literal':
      return t.value === null ? undefined : { literals: [t.value] };
    case 'Enum':
      return { literals: t.values };
    case 'Num':
    case 'Str':
    case 'Bool':
      return { base: t.kind };
    case 'Union': {
      const literals: (string | number | boolean)[] = [];
      for (const m of t.members) {
        const v = valuesOf(m);
        if (!v || !('literals' in v)) return undefined;
        literals.push(...v.literals);
      }
      return { literals };
    }
    default:
      return undefined;
  }
}

const baseOf = (v: string | number | boolean): Base => (typeof v === 'string' ? 'Str' : typeof v === 'number' ? 'Num' : 'Bool');

/**
 * Why `l == r` can never hold (so `!=` always does), or undefined when it may. `l` and `r` are the
 * operands' types, with a literal operand already typed as its literal.
 */
export function neverEqual(l: StaticType, r: StaticType): string | undefined {
  const a = valuesOf(l);
  const b = valuesOf(r);
  if (!a || !b) return undefined;
  if ('base' in a && 'base' in b) return a.base === b.base ? undefined : `a ${a.base} is never equal to a ${b.base}`;
  if ('literals' in a && 'literals' in b) {
    if (a.literals.some((x) => b.literals.includes(x))) return undefined;
    return `${typeToString(l)} and ${typeToString(r)} have no value in common`;
  }
  const [lits, base, litType] = 'literals' in a ? [a.literals, 'base' in b ? b.base : undefined, l] : ['literals' in b ? b.literals : [], a.base, r];
  if (lits.some((x) => baseOf(x) === base)) return undefined;
  return `${typeToString(litType)} is never a ${base}`;
}
