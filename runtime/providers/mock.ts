// `mock`: a deterministic reply synthesized from the schema, through the same reply path as a
// real model (text → envelope → validation), with a fixed self-reported confidence.
import { MOCK_CONFIDENCE, mockValue } from '../infer/mock.js';
import type { LocalProvider } from './types.js';

export function mockProvider(): LocalProvider {
  return {
    kind: 'local',
    name: 'mock',
    answer: (request) => ({
      text: JSON.stringify({ value: mockValue(request.schema), confidence: MOCK_CONFIDENCE }),
      usage: { inputTokens: 0, outputTokens: 0 },
    }),
  };
}
