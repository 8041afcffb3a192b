// The check annotations of struct fields (`@range(0, 150)`, `@pattern("^a")`, `@check("even", f)`)
// and what each is in JSON Schema. One catalogue for the analyzer (which reports a misused check),
// the schema compiler (which writes the keywords) and the docs.
import type { Closure, Expr, FieldCheck } from '../syntax/ast.js';
import { patternProblem } from '../linear-regex.js';

/** What a check applies to: the field's type without its `?`. */
export type CheckBase = 'Num' | 'Str' | 'List';

interface CheckSpec {
  /** the kinds of the arguments, in order */
  args: ('number' | 'string')[];
  on: CheckBase[];
  keywords(args: (number | string)[], base: CheckBase): Record<string, number | string>;
}

const one = (keyword: string) => (args: (number | string)[]) => ({ [keyword]: args[0] });

/** Every check but `@check`, by its snake_case name. */
export const CHECKS: Record<string, CheckSpec> = {
  minimum: { args: ['number'], on: ['Num'], keywords: one('minimum') },
  maximum: { args: ['number'], on: ['Num'], keywords: one('maximum') },
  exclusive_minimum: { args: ['number'], on: ['Num'], keywords: one('exclusiveMinimum') },
  exclusive_maximum: { args: ['number'], on: ['Num'], keywords: one('exclusiveMaximum') },
  multiple_of: { args: ['number'], on: ['Num'], keywords: one('multipleOf') },
  min_length: { args: ['number'], on: ['Str'], keywords: one('minLength') },
  max_length: { args: ['number'], on: ['Str'], keywords: one('maxLength') },
  pattern: { args: ['string'], on: ['Str'], keywords: one('pattern') },
  min_items: { args: ['number'], on: ['List'], keywords: one('minItems') },
  max_items: { args: ['number'], on: ['List'], keywords: one('maxItems') },
  range: { args: ['number', 'number'], on: ['Num'], keywords: ([lo, hi]) => ({ minimum: lo, maximum: hi }) },
  length: {
    args: ['number', 'number'],
    on: ['Str', 'List'],
    keywords: ([lo, hi], base): Record<string, number | string> =>
      base === 'Str' ? { minLength: lo, maxLength: hi } : { minItems: lo, maxItems: hi },
  },
};

/** The names a program may write, for completion and messages. */
export const CHECK_NAMES = [...Object.keys(CHECKS), 'check'];

/** One-line descriptions, for hover and completion. */
export const CHECK_DOCS: Record<string, string> = {
  minimum: '`@minimum(N)`: a Num at least N',
  maximum: '`@maximum(N)`: a Num at most N',
  exclusive_minimum: '`@exclusive_minimum(N)`: a Num greater than N',
  exclusive_maximum: '`@exclusive_maximum(N)`: a Num less than N',
  multiple_of: '`@multiple_of(N)`: a Num that is a multiple of N',
  min_length: '`@min_length(N)`: a Str of at least N characters',
  max_length: '`@max_length(N)`: a Str of at most N characters',
  pattern: '`@pattern("regex")`: a Str the regular expression matches',
  min_items: '`@min_items(N)`: a List of at least N items',
  max_items: '`@max_items(N)`: a List of at most N items',
  range: '`@range(LO, HI)`: a Num from LO to HI (minimum and maximum)',
  length: '`@length(LO, HI)`: a Str of LO to HI characters, or a List of LO to HI items',
  check: '`@check("name", turn(v) { return ...; })`: a Turn predicate; a value it does not accept fails with "must be name"',
};

/** A `@check` predicate as the schema carries it (`x-turn-checks`), run by the validator. */
export interface PredicateCheck {
  name: string;
  /** the predicate closure's AST (JSON data: the schema is part of the compiled bundle) */
  predicate: Closure;
}

/** The schema keyword holding a field's predicate checks (never sent to a model). */
export const PREDICATE_KEYWORD = 'x-turn-checks';

/** `schema` without the keyword of `@check` predicates (the validator runs them; a provider or an MCP client is never sent them), by a walk with its own stack. */
export function withoutPredicates<S extends object>(schema: S): S {
  const copy = structuredClone(schema);
  const work: unknown[] = [copy];
  while (work.length > 0) {
    const v = work.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) delete (v as Record<string, unknown>)[PREDICATE_KEYWORD];
    for (const x of Array.isArray(v) ? v : Object.values(v)) work.push(x);
  }
  return copy;
}

export type CheckResult =
  | { ok: true; keywords: Record<string, number | string> }
  | { ok: true; predicate: PredicateCheck }
  | { ok: false; message: string };

/**
 * What one check annotation means on a field whose type is `base` (undefined when it is none of
 * Num, Str or List), or why it is wrong there.
 */
export function interpretCheck(check: FieldCheck, base: CheckBase | undefined): CheckResult {
  const name = check.name.name;
  if (name === 'check') {
    const [label, fn] = check.args;
    if (check.args.length !== 2 || label.kind !== 'String' || fn.kind !== 'Closure') {
      return { ok: false, message: '`@check` takes a name and a predicate: `@check("even", turn(v) { return ...; })`' };
    }
    if (fn.params.length !== 1) return { ok: false, message: `the predicate of \`@check("${label.value}")\` takes one parameter, the value` };
    return { ok: true, predicate: { name: label.value, predicate: fn } };
  }
  const spec = Object.hasOwn(CHECKS, name) ? CHECKS[name] : undefined;
  if (!spec) return { ok: false, message: `unknown check \`@${name}\` (known: ${CHECK_NAMES.map((n) => '@' + n).join(', ')})` };
  const usage = `\`@${name}(${spec.args.map((a) => (a === 'number' ? 'N' : '"text"')).join(', ')})\``;
  if (check.args.length !== spec.args.length) return { ok: false, message: `${usage} takes ${spec.args.length} argument${spec.args.length === 1 ? '' : 's'}, got ${check.args.length}` };
  const values: (number | string)[] = [];
  for (let i = 0; i < spec.args.length; i++) {
    const v = literal(check.args[i]);
    if (typeof v !== spec.args[i]) return { ok: false, message: `${usage}: argument ${i + 1} must be a ${spec.args[i]} literal` };
    values.push(v!);
  }
  if (base === undefined || !spec.on.includes(base)) {
    return { ok: false, message: `\`@${name}\` applies to a ${spec.on.join(' or a ')} field${base ? `, not a ${base}` : ''}` };
  }
  if (name === 'pattern') {
    // checked here, at compile time, by the engine that will run it (RE2: no backreferences, no lookaround)
    const problem = patternProblem(values[0] as string);
    if (problem) return { ok: false, message: `\`@pattern\`: ${problem}` };
  }
  for (const v of values) {
    if (typeof v === 'number' && !Number.isFinite(v)) return { ok: false, message: `${usage}: the bound must be a finite number` };
  }
  if (spec.args.length === 2 && (values[0] as number) > (values[1] as number)) {
    return { ok: false, message: `${usage}: the lower bound ${values[0]} is above the upper bound ${values[1]}` };
  }
  if ((base === 'List' || base === 'Str' || name === 'multiple_of') && values.some((v) => typeof v === 'number' && (v < 0 || !Number.isInteger(v)) && name !== 'multiple_of')) {
    return { ok: false, message: `${usage}: a length is a whole number, at least 0` };
  }
  if (name === 'multiple_of' && (values[0] as number) <= 0) return { ok: false, message: `${usage}: N must be greater than 0` };
  return { ok: true, keywords: spec.keywords(values, base) };
}

function literal(e: Expr | undefined): number | string | undefined {
  if (!e) return undefined;
  if (e.kind === 'Number' || e.kind === 'String') return e.value;
  if (e.kind === 'Unary' && e.op === '-' && e.operand.kind === 'Number') return -e.operand.value;
  return undefined;
}
