// The `tools/call` of `turn mcp --store DIR` on 2025-11-25 (serve/handlers.ts's `perform` hook,
// given a call already validated): the call's key (call-key.ts), its durable run (served-runs.ts),
// and a run that suspends turned into a question to the client: an elicitation when the client
// declared it can be asked ("go on?"), the run resumed on yes; without elicitation, a result naming
// the run, which `turn resume` continues.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallRequest, PerformCall } from '../serve/handlers.js';
import { INVALID_PARAMS, ProtocolError } from '../serve/validate.js';
import { CallKeyError, callKey, traceOf } from './call-key.js';
import type { DurableServing } from './served-runs.js';

const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** What the client is told of a failure that is not the program's (the store, the host): a message, never a stack. */
export const hostFailure = (tool: string, e: unknown): CallToolResult => failure(`${tool} failed: ${e instanceof Error ? e.message : String(e)}`);

/** The question a suspended served run asks the client, and the answer's schema (one boolean, "go on"). */
export const RESUME_SCHEMA = { type: 'object', properties: { resume: { type: 'boolean', description: 'go on' } }, required: ['resume'] } as const;
export const resumeQuestion = (tool: string, runId: string): string => `${tool} suspended (run ${runId}) and waits for you: go on?`;

export function durablePerform(file: string, durable: DurableServing, storeDir: string): PerformCall {
  return async (c) => {
    try {
      return await performDurably(file, durable, storeDir, c);
    } catch (e) {
      // a key that cannot be one, or reused for another call: invalid params, nothing run
      if (e instanceof CallKeyError) throw new ProtocolError(INVALID_PARAMS, e.message);
      throw e;
    }
  };
}

async function performDurably(file: string, durable: DurableServing, storeDir: string, c: CallRequest): Promise<CallToolResult> {
  let outcome = await durable.call(file, c.tool, c.args, callKey(c.meta, c.req.session, c.req.id), c.setup, traceOf(c.meta));
  while (outcome.kind === 'suspended') {
    const resume = `turn resume ${outcome.runId} --store ${storeDir}`;
    if (!c.req.clientCapabilities()?.elicitation) return failure(`the run suspended (run ${outcome.runId}); resume it with ${resume}, or call again with the same idempotency key`);
    const answer = await c.req.ask('elicitation/create', { mode: 'form', message: resumeQuestion(c.tool.name, outcome.runId), requestedSchema: RESUME_SCHEMA }, c.req.signal);
    if (answer.action !== 'accept' || (answer.content as Record<string, unknown> | undefined)?.resume !== true) {
      return failure(`declined: the run stays suspended (run ${outcome.runId}); resume it with ${resume}`);
    }
    outcome = await durable.resume(outcome.runId, outcome.call, c.tool, c.setup);
  }
  return outcome.result;
}
