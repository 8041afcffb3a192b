// The deterministic `mock` model: synthesizes a value that conforms to a schema.
export const MOCK_CONFIDENCE = 0.9;

export function mockValue(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('const' in s) return s.const;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return 'mock';
    case 'number':
      return 1;
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [mockValue(s.items ?? {})];
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(props)) out[k] = mockValue(v);
      return out;
    }
  }
  return null;
}

/** A reply of the mock provider: a conforming value and a fixed confidence of 0.9. */
export function mockReply(schema: object): { value: unknown; confidence: number } {
  return { value: mockValue(schema), confidence: MOCK_CONFIDENCE };
}
