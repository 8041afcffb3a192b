// The host's check of an answer a typed form sent (extension host side, no `vscode`): the webview
// validates as a person types (schema-form.ts), but a webview is never trusted, so every answer —
// a what-if's edited value, a settled effect's result, a waiting run's answer — is parsed here
// within bounds and validated with the runtime's validator (Ajv and the `@check` predicates: the
// one that checks model replies) before anything is forked, settled or resumed.
import { formatIssue, validateValue, type ValidationIssue } from '../../runtime/index.js';

/** The most bytes of JSON text an answer may have. */
export const MAX_ANSWER_BYTES = 1 << 20;
/** The deepest nesting an answer may have. */
export const MAX_ANSWER_DEPTH = 64;

export type Checked = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[]; message: string };

/**
 * `text` (JSON) as a value of `schema`, or why not, each issue at its JSON Pointer. `schema` null:
 * the type is not known (an effect's result), so any JSON within the bounds is taken.
 */
export function checkAnswer(schema: object | null, text: string): Checked {
  if (Buffer.byteLength(text, 'utf8') > MAX_ANSWER_BYTES) return refused([{ path: '', message: `is longer than ${MAX_ANSWER_BYTES} bytes` }]);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return refused([{ path: '', message: `is not JSON: ${(e as Error).message}` }]);
  }
  if (depthOf(value) > MAX_ANSWER_DEPTH) return refused([{ path: '', message: `is nested deeper than ${MAX_ANSWER_DEPTH} levels` }]);
  if (schema === null) return { ok: true, value };
  let issues: ValidationIssue[];
  try {
    issues = validateValue(schema, value);
  } catch (e) {
    // a schema Ajv cannot compile (a hostile MCP server's): nothing can be shown to conform to it
    return refused([{ path: '', message: `cannot be checked: the expected type's schema is not valid (${(e as Error).message.slice(0, 200)})` }]);
  }
  return issues.length === 0 ? { ok: true, value } : refused(issues);
}

function refused(issues: ValidationIssue[]): Checked {
  return { ok: false, issues, message: issues.slice(0, 5).map(formatIssue).join('; ') };
}

/** How deep `v` nests (iterative: a hostile value cannot overflow the stack). */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (d > max) max = d;
    if (d > MAX_ANSWER_DEPTH) return d;
    if (typeof x === 'object' && x !== null) for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}
