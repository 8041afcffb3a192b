// The tool-offering call every provider's tool test makes (test/providers/*-tools.test.ts): an infer
// with two tools and one earlier round (two parallel calls, one result an error), built from a real
// compiled program's request so the prompt, schema and token bound are the driver's own.
import type { InferRequest, ToolOffer, ToolRound } from '../../runtime/infer/types.js';
import { mock, runWith } from '../infer/helpers.js';

export const PROGRAM = `
struct Review { ok: Bool, score: Num };
context.system("You review code.");
return infer Review { "Review the change."; };
`;

export const TOOLS: ToolOffer[] = [
  {
    name: 'get_weather',
    description: 'The weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } }, required: ['city'], additionalProperties: false },
  },
  {
    name: 'search',
    description: 'Search the web.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['query'] },
  },
];

export const ROUNDS: ToolRound[] = [
  {
    text: 'Let me look that up.',
    calls: [
      { id: 'call_a1', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_b2', name: 'search', arguments: { query: 'paris events', limit: 3 } },
    ],
    results: [
      { id: 'call_a1', name: 'get_weather', content: '{"temp":18,"sky":"clear"}' },
      { id: 'call_b2', name: 'search', content: 'search is down', isError: true },
    ],
  },
];

/** The two parallel calls every reply fixture makes, as Turn should read them. */
export const CALLS = [
  { id: 'call_x1', name: 'get_weather', arguments: { city: 'Oslo', unit: 'c' } },
  { id: 'call_y2', name: 'search', arguments: { query: 'oslo "museums"', limit: 2 } },
];

let base: InferRequest | undefined;

/** The request of PROGRAM's infer (as the VM builds it), with the tools and the earlier round. */
export async function toolRequest(more: Partial<InferRequest> = {}): Promise<InferRequest> {
  if (!base) {
    const r = await runWith(PROGRAM, mock());
    base = r.requests[0];
  }
  return { ...base, tools: TOOLS, toolRounds: ROUNDS, ...more };
}

/** A JSON text cut into pieces of `size` characters (how a stream sends a call's arguments). */
export function pieces(text: string, size = 5): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** 100 MB of argument pieces (64 KiB each, one shared string): a server that never stops writing a call. */
export const HUNDRED_MB_PIECES = 1600;
export const PIECE_64K = '1'.repeat(64 * 1024);
