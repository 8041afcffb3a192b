// The output bound a model call is sent with unless the run or the model spec sets one
// (`max_tokens`): an estimate of the longest reply the wire schema allows, with room to spare,
// between MIN_MAX_TOKENS and MAX_MAX_TOKENS. A grammar keeps a weak model inside the schema but not
// short (a number's digits, a string's characters go on until a limit); this is that limit.
import type { JsonSchema } from './schema.js';

export const MIN_MAX_TOKENS = 256;
export const MAX_MAX_TOKENS = 4096;
/** a string without maxLength, an open value (`{}`) */
const STRING_TOKENS = 160;
const OPEN_TOKENS = 512;
/** items assumed for a list without maxItems */
const LIST_ITEMS = 8;

/** Tokens a value of `schema` may need (a generous estimate, not a count). */
export function schemaTokens(schema: unknown, depth = 0): number {
  if (!schema || typeof schema !== 'object' || depth > 12) return OPEN_TOKENS;
  const s = schema as Record<string, unknown>;
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return Math.max(1, ...alternatives.map((a) => schemaTokens(a, depth + 1))) + 2;
  if (Array.isArray(s.enum)) return Math.max(2, ...s.enum.map((v) => Math.ceil(JSON.stringify(v).length / 2) + 2));
  if ('const' in s) return Math.ceil(JSON.stringify(s.const).length / 2) + 2;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'boolean':
    case 'null':
      return 3;
    case 'integer':
    case 'number':
      return 12;
    case 'string':
      return typeof s.maxLength === 'number' ? Math.ceil(s.maxLength / 2) + 4 : STRING_TOKENS;
    case 'array': {
      const n = typeof s.maxItems === 'number' ? s.maxItems : LIST_ITEMS;
      return 4 + n * (schemaTokens(s.items, depth + 1) + 2);
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      let n = 4;
      for (const [k, v] of Object.entries(props)) n += Math.ceil(k.length / 3) + 3 + schemaTokens(v, depth + 1);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') n += LIST_ITEMS * (8 + schemaTokens(s.additionalProperties, depth + 1));
      return n;
    }
    default:
      return OPEN_TOKENS;
  }
}

/** The default `max_tokens` of a request for `wire` (the envelope `{"value", "confidence"}`). */
export function defaultMaxTokens(wire: JsonSchema): number {
  const estimate = Math.ceil(schemaTokens(wire) * 1.5);
  return Math.min(MAX_MAX_TOKENS, Math.max(MIN_MAX_TOKENS, estimate));
}
