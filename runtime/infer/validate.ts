// Validation of values where they enter a program (model replies, and absorbed operations'
// replies) against compiled schemas: Ajv (JSON Schema 2020-12, strict mode) for the schema, then
// the `@check` predicates the schema carries (predicate.ts). Each schema object is compiled once.
// Failures are worded for the model that must correct them: a JSON Pointer and what was expected,
// a union's failure as the member the value was meant to be (by its discriminator) and what that
// member lacks.
import type { ErrorObject } from 'ajv';
import { PREDICATE_KEYWORD, type PredicateCheck } from './checks.js';
import { atPointer, resolve, validatorFor, withDefs } from './compiled.js';
import { runPredicate } from './predicate.js';
import { fromReply } from './reply-value.js';
import type { ValidationIssue } from './types.js';

type Schema = Record<string, unknown>;

/** Options of `validateValue`. */
export interface ValidateOptions {
  /** prefixed to every issue's path (the infer driver passes `/value`, the reply envelope's) */
  prefix?: string;
  /** run the schema's `@check` predicates (default true) */
  predicates?: boolean;
}

/**
 * Every way `value` fails `schema` (a root schema: its `$defs` are where `$ref`s point), each with
 * its JSON Pointer; `[]` when it conforms. The one validator of values entering a program: `infer`
 * replies (driver.ts) and absorbed operations' replies call it.
 */
export function validateValue(schema: object, value: unknown, options: ValidateOptions = {}): ValidationIssue[] {
  const prefix = options.prefix ?? '';
  const root = schema as Schema;
  const v = validatorFor(schema);
  if (!v(value)) return condense(v.errors ?? [], root, value).map((i) => ({ path: prefix + i.path, message: i.message }));
  if (options.predicates === false || !hasPredicates(root)) return [];
  const out: ValidationIssue[] = [];
  runPredicates(root, root, value, prefix, out, 0);
  return out;
}

/** `null` when `value` conforms, else a readable list of the violations. */
export function validate(schema: object, value: unknown): string | null {
  const found = validateValue(schema, value);
  return found.length > 0 ? found.map(formatIssue).join('; ') : null;
}

/** `null` when `value` conforms, else each violation with its JSON Pointer (prefixed by `prefix`). */
export function issues(schema: object, value: unknown, prefix = ''): ValidationIssue[] | null {
  const found = validateValue(schema, value, { prefix });
  return found.length > 0 ? found : null;
}

export { validatorFor };

export function formatIssue(i: ValidationIssue): string {
  return `${i.path || '/'}: ${i.message}`;
}

// ------------------------------------------------------------------------------------ wording

/**
 * Ajv's errors in words, with each failed `anyOf` replaced by a diagnosis of its own: Ajv reports
 * every member's errors, which tells a model nothing about which member to fix.
 */
function condense(errors: ErrorObject[], root: Schema, value: unknown): ValidationIssue[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  const out: ValidationIssue[] = [];
  const inUnion = (e: ErrorObject): boolean =>
    unions.some((u) => u !== e && (e.instancePath === u.instancePath || e.instancePath.startsWith(u.instancePath + '/')));
  const outer = unions.filter((u) => !inUnion(u));
  for (const e of errors) {
    if (e.keyword === 'anyOf') {
      if (!outer.includes(e)) continue;
      const node = atPointer(root, e.schemaPath.replace(/\/anyOf$/, ''));
      const members = Array.isArray(node?.anyOf) ? (node.anyOf as Schema[]) : [];
      out.push(...unionIssues(root, members, valueAt(value, e.instancePath), e.instancePath));
    } else if (!inUnion(e)) {
      out.push({ path: e.instancePath, message: describe(e) });
    }
  }
  return out;
}

/** Why `value` is none of the union's `members`. */
function unionIssues(root: Schema, members: Schema[], value: unknown, path: string): ValidationIssue[] {
  // `T?`: what a T must be (null is the other way out, which the value did not take)
  const nonNull = members.filter((m) => m.type !== 'null');
  if (nonNull.length === 1 && members.length === 2) {
    return validateValue(withDefs(root, nonNull[0]), value, { predicates: false }).map((i) => ({ path: path + i.path, message: i.message }));
  }
  const resolved = members.map((m) => resolve(root, m));
  const names = resolved.map((m, i) => memberName(m, members[i]));
  const expected = `must be one of: ${names.join(', ')}`;
  // The member the value names by its discriminator, if it names one.
  let chosen = -1;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    chosen = resolved.findIndex((m) => {
      const d = discriminators(m);
      return d.length > 0 && d.every(([k, c]) => obj[k] === c);
    });
    if (chosen < 0) {
      // A tag every member has (an OpenAPI discriminator, required or not): the member it names, or
      // none, which is said with the value (`its "petType" is "parrot", which names none of them`).
      const tag = sharedTag(resolved, obj);
      if (tag) {
        chosen = resolved.findIndex((m) => tagValues(m, tag).includes(obj[tag]));
        if (chosen < 0) return [{ path, message: `${expected}; its ${JSON.stringify(tag)} is ${JSON.stringify(obj[tag])}, which names none of them` }];
      }
    }
    if (chosen < 0) {
      // Else the struct member whose fields the value has most of.
      const scores = resolved.map((m) => (m.type === 'object' && m.properties ? Object.keys(obj).filter((k) => k in (m.properties as Schema)).length : -1));
      const best = Math.max(...scores);
      if (best > 0 && scores.filter((s) => s === best).length === 1 && discriminators(resolved[scores.indexOf(best)]).length === 0) chosen = scores.indexOf(best);
    }
  }
  if (chosen < 0) return [{ path, message: expected }];
  const member = withDefs(root, members[chosen]);
  const inner = validateValue(member, value, { predicates: false });
  return [{ path, message: `${expected}; as ${names[chosen]}:` }, ...inner.map((i) => ({ path: path + i.path, message: i.message }))];
}

/** How a union member is named to a model: a struct by its name and discriminator, else its type. */
function memberName(m: Schema, written: Schema): string {
  if (typeof m.title === 'string') {
    const d = discriminators(m);
    return d.length > 0 ? `${m.title} (${d.map(([k, c]) => `${k}: ${JSON.stringify(c)}`).join(', ')})` : m.title;
  }
  if ('const' in m) return JSON.stringify(m.const);
  if (Array.isArray(m.enum)) return m.enum.map((x) => JSON.stringify(x)).join(' | ');
  if (typeof m.type === 'string') return m.type === 'array' ? 'a list' : m.type === 'object' ? 'a map' : `a ${m.type}`;
  return JSON.stringify(written);
}

/** The values a struct member's property `key` may take when it is a literal or an enum (null or not); [] when it is not. */
function tagValues(m: Schema, key: string): unknown[] {
  const p = ((m.properties ?? {}) as Record<string, Schema>)[key];
  if (!p || typeof p !== 'object') return [];
  const options = Array.isArray(p.anyOf) ? (p.anyOf as Schema[]).filter((x) => x.type !== 'null') : [p];
  if (options.length !== 1) return [];
  const o = options[0];
  return 'const' in o ? [o.const] : Array.isArray(o.enum) ? o.enum : [];
}

/** A property of `value` that every member types as literals (a discriminator), if there is one. */
function sharedTag(members: Schema[], value: Record<string, unknown>): string | undefined {
  if (members.length < 2 || !members.every((m) => m.type === 'object')) return undefined;
  return Object.keys(value).find((k) => (typeof value[k] === 'string' || typeof value[k] === 'number') && members.every((m) => tagValues(m, k).length > 0));
}

/** The literal-typed (`const`) required properties of a struct schema. */
function discriminators(m: Schema): [string, unknown][] {
  const props = (m.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(m.required) ? (m.required as string[]) : [];
  return Object.entries(props).filter(([k, p]) => required.includes(k) && p && 'const' in p).map(([k, p]) => [k, p.const]);
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `must not have the property ${JSON.stringify(p.additionalProperty)}`;
    case 'required':
      return `must have the property ${JSON.stringify(p.missingProperty)}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `must be ${String(p.type).replace(/^(array|object|integer)$/, 'an $1').replace(/^(number|string|boolean|null)$/, 'a $1')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'minLength':
      return `must have at least ${String(p.limit)} character${p.limit === 1 ? '' : 's'}`;
    case 'maxLength':
      return `must have at most ${String(p.limit)} character${p.limit === 1 ? '' : 's'}`;
    case 'minItems':
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'pattern':
      return `must match the pattern ${JSON.stringify(p.pattern)}`;
  }
  return e.message ?? e.keyword;
}

// ------------------------------------------------------------------------------------ predicates

const withPredicates = new WeakMap<object, boolean>();

/** Whether any node of `schema` carries checks (a walk of the reply is only needed then); known per schema. */
function hasPredicates(schema: Schema): boolean {
  let known = withPredicates.get(schema);
  if (known === undefined) {
    const carries = (node: unknown, depth: number): boolean => {
      if (node === null || typeof node !== 'object' || depth > 1000) return false;
      if (Array.isArray(node)) return node.some((x) => carries(x, depth + 1));
      if (PREDICATE_KEYWORD in node) return true;
      return Object.values(node).some((x) => carries(x, depth + 1));
    };
    known = carries(schema, 0);
    withPredicates.set(schema, known);
  }
  return known;
}

/** Runs the `@check` predicates along `value` (which conforms to `node`), collecting failures. */
function runPredicates(root: Schema, node: Schema, value: unknown, path: string, out: ValidationIssue[], depth: number): void {
  if (depth > 1000) return;
  const s = resolve(root, node);
  if (value === null || value === undefined) return;
  const checks = s[PREDICATE_KEYWORD] as PredicateCheck[] | undefined;
  if (checks) {
    for (const c of checks) {
      const r = runPredicate(c.predicate, fromReply(value, s, root));
      if (!r.ok) out.push({ path, message: `must be ${c.name} (check \`${c.name}\`${r.error ? `: ${r.error}` : ''})` });
    }
  }
  if (Array.isArray(s.anyOf)) {
    const member = (s.anyOf as Schema[]).find((m) => validatorFor(withDefs(root, m))(value));
    if (member) runPredicates(root, member, value, path, out, depth + 1);
    return;
  }
  if (Array.isArray(value)) {
    if (s.items && typeof s.items === 'object') value.forEach((x, i) => runPredicates(root, s.items as Schema, x, `${path}/${i}`, out, depth + 1));
    return;
  }
  if (typeof value === 'object') {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
      const sub = props[k] ?? (typeof s.additionalProperties === 'object' ? (s.additionalProperties as Schema) : undefined);
      if (sub) runPredicates(root, sub, x, `${path}/${escapePointer(k)}`, out, depth + 1);
    }
  }
}

function valueAt(value: unknown, pointer: string): unknown {
  let cur = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function escapePointer(k: string): string {
  return k.replace(/~/g, '~0').replace(/\//g, '~1');
}
