// The check of a person's answer to `ask T` (issue 43): an answer comes from outside the program (a
// terminal, an editor's webview, `turn answer`, a store), so it is measured within bounds before
// anything recursive touches it, must be plain JSON, and must conform to T — with the validator that
// checks model replies (Ajv and the `@check` predicates). An answer that fails is never bound.
import { formatIssue, validateValue } from '../infer/validate.js';
import type { ValidationIssue } from '../infer/types.js';

/** The most bytes of JSON an answer may have (its strings and keys, as UTF-16 units, plus punctuation). */
export const MAX_ANSWER_BYTES = 1 << 20;
/** The deepest nesting an answer may have. */
export const MAX_ANSWER_DEPTH = 64;

export type CheckedAnswer = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[]; message: string };

/**
 * `value` as an answer of `schema`'s type, or each reason it is not one (at its JSON Pointer).
 * `schema` null: the type is not known (an effect's result settled by hand), so any plain JSON
 * within the bounds is taken.
 */
export function checkAnswer(schema: object | null, value: unknown): CheckedAnswer {
  const shape = plainShape(value);
  if (shape) return refused([{ path: '', message: shape }]);
  if (schema === null) return { ok: true, value };
  let issues: ValidationIssue[];
  try {
    issues = validateValue(schema, value);
  } catch (e) {
    return refused([{ path: '', message: `cannot be checked: the expected type's schema is not valid (${(e as Error).message.slice(0, 200)})` }]);
  }
  return issues.length === 0 ? { ok: true, value } : refused(issues);
}

/** An answer typed as JSON text (the terminal, `turn answer --value`), parsed within the bounds, then checked. */
export function checkAnswerText(schema: object | null, text: string): CheckedAnswer {
  if (text.length > MAX_ANSWER_BYTES) return refused([{ path: '', message: `is longer than ${MAX_ANSWER_BYTES} bytes` }]);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return refused([{ path: '', message: `is not JSON (${(e as Error).message}); a text answer is written in quotes: "yes"` }]);
  }
  return checkAnswer(schema, value);
}

function refused(issues: ValidationIssue[]): CheckedAnswer {
  return { ok: false, issues, message: issues.slice(0, 5).map(formatIssue).join('; ') };
}

/**
 * Why `value` is not plain JSON within the bounds, or undefined. Iterative and stopping at the
 * first excess: a cyclic or huge value costs at most the bounds to refuse.
 */
function plainShape(value: unknown): string | undefined {
  let bytes = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > MAX_ANSWER_DEPTH) return `is nested deeper than ${MAX_ANSWER_DEPTH} levels`;
    bytes += 2;
    if (v === null || typeof v === 'boolean') bytes += 4;
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'holds a number that is not finite';
      bytes += 24;
    } else if (typeof v === 'string') bytes += v.length;
    else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0 && bytes <= MAX_ANSWER_BYTES; i--, bytes++) stack.push([v[i], depth + 1]);
    } else if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      for (const [k, c] of Object.entries(v)) {
        bytes += k.length + 4;
        if (bytes > MAX_ANSWER_BYTES) break;
        stack.push([c, depth + 1]);
      }
    } else return `holds a ${typeof v} value, which JSON has no way to write`;
    if (bytes > MAX_ANSWER_BYTES) return `is longer than ${MAX_ANSWER_BYTES} bytes`;
  }
  return undefined;
}
