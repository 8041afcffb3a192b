// `mock`: a deterministic reply synthesized from the schema, through the same reply path as a
// real model (text → envelope → validation), with a fixed self-reported confidence.
import { MOCK_CONFIDENCE, mockValue } from '../infer/mock.js';
import type { LocalProvider } from './types.js';

export function mockProvider(): LocalProvider {
  return {
    kind: 'local',
    name: 'mock',
    nativeTools: true,
    // the run's --seed (or the infer's `with { seed }`) picks among the shapes a type leaves open; none: seed 0
    // an infer that offers tools: the first round calls each of them once, with arguments made from its schema
    answer: (request) =>
      request.tools && request.tools.length > 0 && (request.toolRounds?.length ?? 0) === 0
        ? {
            toolCalls: request.tools.map((t, i) => ({ id: `mock_call_${i + 1}`, name: t.name, arguments: mockValue(t.parameters, request.sampling?.seed ?? 0) })),
            finishReason: 'tool_calls',
            usage: { inputTokens: 0, outputTokens: 0 },
          }
        : {
      text: JSON.stringify({ value: mockValue(request.schema, request.sampling?.seed ?? 0), confidence: MOCK_CONFIDENCE }),
      usage: { inputTokens: 0, outputTokens: 0 },
      ...(request.sampling ? { meta: { sampling: { ...request.sampling } } } : {}),
          },
  };
}
