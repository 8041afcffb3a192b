// The ask port (issue 43): `ask T { prompt }` puts a typed question to a person. The VM yields it
// as the effect tool ASK_TOOL (so the durable layer journals it like any effect: a replay or a
// resume returns the recorded answer and never asks again); the run's host asks its `ask` port
// (runtime/ask/host.ts: the editor's form, the terminal) and checks every answer against T.
import type { JsonSchema } from '../infer/schema.js';
import type { ValidationIssue } from '../infer/types.js';
import type { ToolRequest } from './host.js';

/** The effect tool an `ask` yields as: `args` are [type name, schema, prompt] (what the journal hashes). Not callable with `call`. */
export const ASK_TOOL = '__ask';

/** Where an `ask` is in the program (its file, 1-based line and column). */
export interface AskLocation {
  path: string;
  line: number;
  column: number;
}

/** What a person is asked. */
export interface AskQuestion {
  typeName: string;
  /** T as a JSON Schema: a form is generated from it, and the answer is validated against it */
  schema: JsonSchema;
  prompt: string;
  pid: number;
  location: AskLocation;
  /** 1 for the first asking; more when an earlier answer was refused */
  attempt: number;
  /** why the previous answer was refused, each at its JSON Pointer (a re-ask) */
  errors?: ValidationIssue[];
  /** aborted when the run stops or no longer wants the answer */
  signal?: AbortSignal;
}

/**
 * Who answers an `ask`: resolves with the answer (any JSON value: it is checked against the type
 * before it is bound), or rejects — a person cancelled (the program's `AskError`), or nobody can
 * answer now (an error marked `markRefusedBeforeSending`: a durable run stops, waiting).
 */
export type AskPort = (question: AskQuestion) => Promise<unknown>;

/** An ASK_TOOL request's arguments, read back (from the VM's own request: never from outside data). */
export function askArgs(args: unknown[]): { typeName: string; schema: JsonSchema; prompt: string } {
  return { typeName: String(args[0]), schema: args[1] as JsonSchema, prompt: String(args[2]) };
}

/** An ASK_TOOL request: the VM adds where the `ask` is (not hashed by the journal: paths differ between machines). */
export type AskRequest = ToolRequest & { at?: AskLocation; signal?: AbortSignal };
