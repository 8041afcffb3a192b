// The host of a `turn run` (plain or durable): the model, the authority (vault, capabilities,
// approval), the trace and standard output, built from the command line in one place.
import { openTrace } from '../events/trace.js';
import type { RunEvent } from '../events/index.js';
import { budgetedModel, performTool } from '../effects/host.js';
import { VaultError } from '../effects/vault.js';
import type { InferIO, InferRequest } from '../infer/types.js';
import type { Host } from '../vm/index.js';
import { AUTHORITY_OPTIONS, authorityFromFlags } from './authority.js';
import { createModel, inferRetriesFromEnv, ModelInputError, UnknownModelError } from './model.js';
import { StdoutLines } from './output.js';
import { EXIT, UsageError, numberOption } from './main.js';

/** The options of `turn run` that shape its host (plain and durable runs alike). */
export const RUN_OPTIONS = {
  json: { type: 'boolean' },
  model: { type: 'string' },
  'max-steps': { type: 'string' },
  seed: { type: 'string' },
  trace: { type: 'boolean' },
  'trace-file': { type: 'string' },
  'refresh-schemas': { type: 'boolean' },
  ...AUTHORITY_OPTIONS,
} as const;

export interface HostSetup {
  host: Host;
  stdout: StdoutLines;
  redact: (s: string) => string;
  close(): void;
  maxSteps?: number;
  seed?: number;
  inferRetries?: number;
  json: boolean;
}

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

const err = (line: string) => process.stderr.write(line.endsWith('\n') ? line : line + '\n');

/**
 * Builds the run's host from its flags, or returns the exit code after saying what is wrong.
 * `knowledgeRunId`: the id std/knowledge writes under (a durable run passes its own, so a resumed
 * run still sees its drafts).
 */
export async function hostFrom(values: Values, options: { knowledgeRunId?: () => string } = {}): Promise<HostSetup | number> {
  let authority;
  try {
    authority = await authorityFromFlags(values as never, process.cwd(), options);
  } catch (e) {
    if (e instanceof VaultError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    throw new UsageError((e as Error).message);
  }
  const { redactor, context: effects } = authority;
  let model;
  let inferRetries;
  try {
    model = createModel(String(values.model ?? process.env.TURN_MODEL ?? 'mock'));
    inferRetries = inferRetriesFromEnv();
  } catch (e) {
    if (e instanceof UnknownModelError) throw new UsageError(e.message);
    if (e instanceof ModelInputError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    throw e;
  }
  let trace: ReturnType<typeof openTrace> | undefined;
  const traceTarget = values['trace-file'] !== undefined ? String(values['trace-file']) : values.trace ? '-' : undefined;
  if (traceTarget !== undefined) {
    try {
      trace = openTrace(traceTarget);
    } catch (e) {
      err(`turn: cannot write the trace to ${traceTarget}: ${(e as Error).message}`);
      return EXIT.usage;
    }
  }
  const stdout = new StdoutLines();
  const traceSink = trace?.sink;
  return {
    host: {
      output: (line) => stdout.write(redactor.redact(line)),
      infer: budgetedModel(effects.capabilities, effects.usage!, (request: InferRequest, io?: InferIO) => model.infer(request, io)),
      tool: (request) => performTool(effects, request),
      ...(traceSink ? { event: (event: RunEvent) => traceSink(redactor.redactDeep(event)) } : {}),
    },
    stdout,
    redact: (s) => redactor.redact(s),
    close: () => trace?.close(),
    maxSteps: numberOption(values['max-steps'], 'max-steps'),
    seed: numberOption(values.seed, 'seed'),
    inferRetries,
    json: values.json === true,
  };
}

