// Schema patterns on a linear-time engine. A JSON Schema `pattern` may come from outside — an
// absorbed OpenAPI spec, an MCP server's output schema, a model-facing type's `@pattern` — and so
// may the text it is tested against (a model reply, a tool's structuredContent). JavaScript's
// RegExp backtracks: `^(a+)+$` against 32 `a`s and a `!` takes 30 s of CPU in one synchronous
// call that no timer and no SIGTERM handler can interrupt. RE2 (re2js, as std/regex uses it in
// runtime/effects/tools.ts) matches in time linear in the text, and rules out what needs
// backtracking: backreferences and lookaround, which are refused with a message naming the pattern.
//
// `linearRegExp` is the engine Ajv takes as `code: { regExp }` (LINEAR_AJV_OPTIONS): Ajv calls it
// when it compiles a schema, so a pattern RE2 cannot run fails the compile, not a later validation.
import type { RE2JS } from 're2js';

/** A pattern the linear-time engine cannot compile (backreferences, lookaround, bad syntax). */
export class PatternError extends Error {
  override name = 'PatternError';
}

let re2Class: typeof RE2JS | undefined;
/** re2js, required by the first pattern (it costs a few ms to initialise): schema patterns and std/regex's. */
export function re2(): typeof RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (re2Class ??= (require('re2js') as typeof import('re2js')).RE2JS);
}

/** What `p` uses that a linear-time engine cannot have (outside character classes), or null. */
export function unsupportedSyntax(p: string): string | null {
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      const d = p[i + 1];
      if (!inClass && ((d >= '1' && d <= '9') || (d === 'k' && p[i + 2] === '<'))) return 'a backreference (\\1, \\k<name>)';
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
      if (p[i + 1] === '^') i++;
      if (p[i + 1] === ']') {
        i++; // `[]` and `[^]`: the class is empty (or everything)
        inClass = false;
      }
    } else if (c === '(' && p[i + 1] === '?') {
      if (p[i + 2] === '=' || p[i + 2] === '!') return 'a lookahead assertion ((?=…), (?!…))';
      if (p[i + 2] === '<' && (p[i + 3] === '=' || p[i + 3] === '!')) return 'a lookbehind assertion ((?<=…), (?<!…))';
    }
  }
  return null;
}

/** A quoted, shortened pattern for a message. */
export function quotePattern(p: string): string {
  return JSON.stringify(p.length > 80 ? p.slice(0, 80) + '…' : p);
}

/**
 * The longest schema pattern compiled (characters). RE2's time is linear in the text times the
 * pattern's compiled size, and compiling is linear in the pattern: a megabyte pattern from an MCP
 * server would cost seconds per check. Real schema patterns are far shorter.
 */
export const MAX_PATTERN_CHARS = 4096;

/** Compiled patterns, kept while few (each holds a lazy DFA's state cache). */
const compiled = new Map<string, RE2JS>();
const COMPILED_KEPT = 256;

/**
 * `pattern` compiled by RE2, as written in JavaScript (ECMAScript) syntax; throws PatternError.
 * `maxChars`: the longest pattern taken (a script fixture's own `match`, the user's file, may be longer).
 */
export function compileLinear(pattern: string, maxChars = MAX_PATTERN_CHARS): RE2JS {
  const hit = compiled.get(pattern);
  if (hit) return hit;
  if (pattern.length > maxChars) throw new PatternError(`the pattern ${quotePattern(pattern)} is longer than ${maxChars} characters, more than Turn compiles for a schema`);
  const missing = unsupportedSyntax(pattern);
  if (missing) {
    throw new PatternError(
      `the pattern ${quotePattern(pattern)} uses ${missing}, which Turn does not run: schema patterns are matched by RE2 in time linear in the text, which rules out backreferences and lookaround`,
    );
  }
  let re: RE2JS;
  try {
    const RE2 = re2();
    re = RE2.compile(RE2.translateRegExp(pattern));
  } catch (e) {
    throw new PatternError(`the pattern ${quotePattern(pattern)} is not a regular expression Turn can run: ${(e as Error).message.replace(/^error parsing regexp: /, '')}`);
  }
  if (compiled.size >= COMPILED_KEPT) {
    const [oldest, old] = compiled.entries().next().value!;
    old.reset();
    compiled.delete(oldest);
  }
  compiled.set(pattern, re);
  return re;
}

/** The problem with `pattern` for the linear-time engine, or undefined when it compiles. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compileLinear(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Whether `text` contains a match of `pattern` (JavaScript's `RegExp.test`), in linear time. */
export function testLinear(pattern: string, text: string): boolean {
  return compileLinear(pattern).test(text);
}

/** What Ajv needs of a RegExp: `test`, and a `toString` that tells patterns apart (Ajv keys its scope by it). */
interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/**
 * Ajv's `code.regExp` engine (its RegExpEngine type): `(pattern, flags) => {test}`. Ajv requires a
 * `code` property, the expression standalone code would call; Turn never emits standalone code.
 */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string): LinearRegExp => {
    const re = compileLinear(pattern);
    return { test: (text: string) => re.test(text), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'require("re2js").RE2JS' },
);

/**
 * Options every Ajv instance in the runtime takes: patterns run on RE2, and strict mode does not
 * test `patternProperties` against the schema's own property names with a backtracking RegExp
 * (`allowMatchingProperties` turns that check off; it only ever warned).
 */
export const LINEAR_AJV_OPTIONS = { code: { regExp: linearRegExp }, allowMatchingProperties: true } as const;
