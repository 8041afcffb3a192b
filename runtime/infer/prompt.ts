// What the model is asked for: the reply envelope `{"value": <T>, "confidence": <0..1>}` (one per
// type, built once and cached with the type's schema) and the task text that ends every request.
import type { JsonSchema } from './schema.js';
import type { Feedback } from './types.js';
import { formatIssue } from './validate.js';

const wireCache = new WeakMap<object, JsonSchema>();

/** The envelope schema sent to the model (no `$schema`, which strict server modes refuse). */
export function wireSchema(schema: JsonSchema): JsonSchema {
  let w = wireCache.get(schema);
  if (!w) {
    const { $schema: _dialect, ...value } = schema;
    w = {
      type: 'object',
      properties: {
        value,
        confidence: { type: 'number', minimum: 0, maximum: 1, description: 'how likely the value is right, from 0 to 1' },
      },
      required: ['value', 'confidence'],
      additionalProperties: false,
    };
    wireCache.set(schema, w);
  }
  return w;
}

/**
 * The end of the request: the program's prompt, then the reply format. It comes after the
 * context so that the context stays a shared, cacheable prefix.
 */
export function taskText(prompt: string, typeName: string, wire: JsonSchema): string {
  return (
    `${prompt}${prompt.length ? '\n\n' : ''}` +
    `Reply with only a JSON object {"value": V, "confidence": C}: V is the answer, a ${typeName} ` +
    `that matches the schema of "value" below, and C is a number from 0 to 1, how likely V is right.\n` +
    JSON.stringify(wire)
  );
}

/** The message that re-asks after a rejected reply: each problem with its path. */
export function feedbackText(f: Feedback): string {
  return (
    'That reply was rejected:\n' +
    f.issues.map((i) => `- ${formatIssue(i)}`).join('\n') +
    '\nReply again with only the corrected JSON object.'
  );
}
