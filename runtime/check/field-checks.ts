// The check annotations of a struct's fields, checked where the struct is declared: a known check,
// literal arguments of the right kinds, on a field of a type it applies to, and a `@check`
// predicate that is pure (runtime/infer/predicate.ts). The same rules the schema compiler applies.
import type * as A from '../syntax/ast.js';
import { interpretCheck, type CheckBase } from '../infer/checks.js';
import { predicateProblem } from '../infer/predicate.js';
import { nonNull, type StaticType } from './types.js';

export interface CheckProblem {
  span: A.Span;
  message: string;
}

/** What is wrong with the checks of `field`, whose type (resolved) is `type`. */
export function fieldCheckProblems(field: A.FieldDecl, type: StaticType): CheckProblem[] {
  const out: CheckProblem[] = [];
  const base = checkBase(nonNull(type));
  // a field of a type parameter or an unknown type (Any): only the check itself is checked here
  const gradual = nonNull(type).kind === 'Any';
  for (const c of field.checks) {
    const r = interpretCheck(c, base);
    if (!r.ok) {
      if (gradual && r.message.includes('applies to')) continue;
      out.push({ span: c.span, message: `${field.name.name}: ${r.message}` });
    } else if ('predicate' in r) {
      const problem = predicateProblem(r.predicate.predicate);
      if (problem) out.push(problem);
    }
  }
  return out;
}

function checkBase(t: StaticType): CheckBase | undefined {
  switch (t.kind) {
    case 'Num':
    case 'Str':
    case 'List':
      return t.kind;
    case 'Enum':
      return 'Str';
    case 'Literal':
      return typeof t.value === 'number' ? 'Num' : typeof t.value === 'string' ? 'Str' : undefined;
    default:
      return undefined;
  }
}
