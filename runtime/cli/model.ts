// Chooses the model provider named on the command line (`--model`).
import { mockReply } from '../infer/mock.js';

export interface InferRequest {
  typeName: string;
  schema: object;
  prompt: string;
  context: string[];
  pid: number;
}

export interface Model {
  infer(request: InferRequest): Promise<{ value: unknown; confidence: number }>;
}

export class UnknownModelError extends Error {}

export function createModel(name: string): Model {
  if (name === 'mock') {
    return { infer: async (request) => mockReply(request.schema) };
  }
  if (name.startsWith('script:')) {
    throw new UnknownModelError(`the script provider (${name}) is not available in this version yet; use --model mock`);
  }
  throw new UnknownModelError(`unknown model \`${name}\`: use \`mock\` or \`script:FILE\``);
}
