// What the model is asked for: the reply envelope `{"value": <T>, "confidence": <0..1>}` (one per
// type, built once and cached with the type's schema) and the task text that ends every request.
import { PREDICATE_KEYWORD, type PredicateCheck } from './checks.js';
import type { JsonSchema } from './schema.js';
import type { Feedback } from './types.js';
import { formatIssue } from './validate.js';

const wireCache = new WeakMap<object, JsonSchema>();

/**
 * The envelope schema sent to the model: no `$schema` (strict server modes refuse it), the type's
 * `$defs` at the envelope's root (where its `$ref`s point), and each `@check` predicate said in the
 * field's `description` instead of its code (the validator runs it).
 */
export function wireSchema(schema: JsonSchema): JsonSchema {
  let w = wireCache.get(schema);
  if (!w) {
    const { $schema: _dialect, $defs, ...value } = schema;
    w = {
      type: 'object',
      properties: {
        value: withoutPredicates(value),
        confidence: { type: 'number', minimum: 0, maximum: 1, description: 'how likely the value is right, from 0 to 1' },
      },
      required: ['value', 'confidence'],
      additionalProperties: false,
      ...($defs ? { $defs: withoutPredicates($defs) } : {}),
    };
    wireCache.set(schema, w);
  }
  return w;
}

function withoutPredicates(x: unknown): JsonSchema {
  return strip(x) as JsonSchema;
}

function strip(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(strip);
  if (!x || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  let checks: PredicateCheck[] | undefined;
  for (const [k, v] of Object.entries(x)) {
    if (k === PREDICATE_KEYWORD) checks = v as PredicateCheck[];
    else out[k] = strip(v);
  }
  if (checks && checks.length > 0) {
    const said = checks.map((c) => `must be ${c.name}`).join('; ');
    out.description = typeof out.description === 'string' ? `${out.description} (${said})` : said;
  }
  return out;
}

/**
 * The descriptions in a wire schema as lines a model reads before the schema itself:
 * `- Contact: A contact found in the text.`, `- Contact.name: Full name...`.
 */
export function describedFields(wire: JsonSchema): string[] {
  const lines: string[] = [];
  const seen = new Set<object>();
  const visit = (s: unknown, where: string): void => {
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    seen.add(s);
    if (Array.isArray(s)) return s.forEach((x) => visit(x, where));
    const node = s as Record<string, unknown>;
    const name = typeof node.title === 'string' ? node.title : where;
    if (typeof node.description === 'string' && name) lines.push(`- ${name}: ${node.description}`);
    if (node.properties && typeof node.properties === 'object') {
      for (const [k, v] of Object.entries(node.properties as Record<string, unknown>)) visit(v, `${name ? name + '.' : ''}${k}`);
    }
    for (const key of ['items', 'additionalProperties', 'anyOf']) if (key in node) visit(node[key], where);
    if (node.$defs && typeof node.$defs === 'object') for (const d of Object.values(node.$defs as Record<string, unknown>)) visit(d, '');
  };
  const props = (wire.properties ?? {}) as Record<string, unknown>;
  visit(props.value, '');
  if (wire.$defs) visit(wire.$defs, '');
  return lines;
}

/**
 * The end of the request: the program's prompt, then the reply format. It comes after the
 * context so that the context stays a shared, cacheable prefix.
 */
export function taskText(prompt: string, typeName: string, wire: JsonSchema): string {
  return `${prompt}${prompt.length ? '\n\n' : ''}` + replyFormat(typeName, wire);
}

/** The part of the task that depends only on the type: made once per wire schema (a type's is made once), not per call. */
const formats = new WeakMap<JsonSchema, Map<string, string>>();
function replyFormat(typeName: string, wire: JsonSchema): string {
  let byName = formats.get(wire);
  if (!byName) formats.set(wire, (byName = new Map()));
  let text = byName.get(typeName);
  if (text === undefined) {
    const described = describedFields(wire);
    text =
      `Reply with only a JSON object {"value": V, "confidence": C}: V is the answer, a ${typeName} ` +
      `that matches the schema of "value" below, and C is a number from 0 to 1, how likely V is right.\n` +
      (described.length > 0 ? `What the parts of V mean:\n${described.join('\n')}\n` : '') +
      JSON.stringify(wire);
    byName.set(typeName, text);
  }
  return text;
}

/** The message that re-asks after a rejected reply: each problem with its path. */
export function feedbackText(f: Feedback): string {
  return (
    'That reply was rejected:\n' +
    f.issues.map((i) => `- ${formatIssue(i)}`).join('\n') +
    '\nReply again with only the corrected JSON object.'
  );
}
