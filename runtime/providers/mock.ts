// `mock`: a deterministic reply synthesized from the schema, through the same reply path as a
// real model (text → envelope → validation), with a fixed self-reported confidence.
import { MOCK_CONFIDENCE, mockValue } from '../infer/mock.js';
import type { LocalProvider } from './types.js';

export function mockProvider(): LocalProvider {
  return {
    kind: 'local',
    name: 'mock',
    // the run's --seed (or the infer's `with { seed }`) picks among the shapes a type leaves open; none: seed 0
    answer: (request) => ({
      text: JSON.stringify({ value: mockValue(request.schema, request.sampling?.seed ?? 0), confidence: MOCK_CONFIDENCE }),
      usage: { inputTokens: 0, outputTokens: 0 },
      ...(request.sampling ? { meta: { sampling: { ...request.sampling } } } : {}),
    }),
  };
}
