// The host's side of `ask T { prompt }` (issue 43): asks the run's ask port, checks each answer
// against T (answer.ts), and asks again with the errors until an answer conforms or the re-asks
// run out. The value returned is the one the durable layer journals and the VM binds.
import { markRefusedBeforeSending } from '../ports/refusal.js';
import { askArgs, type AskLocation, type AskPort, type AskRequest } from '../ports/ask.js';
import { checkAnswer } from './answer.js';

/** The most times one question is asked (the first asking and the re-asks after refused answers). */
export const MAX_ASKINGS = 5;

/** `file:line` of an ask, for messages. */
export function where(at: AskLocation | undefined): string {
  return at ? `${at.path}:${at.line}` : 'the program';
}

/**
 * Answers one `ask` through `port`; without a port nobody can answer, which is a refusal before
 * anything was asked: a durable run with a store then stops, waiting for `turn answer`.
 */
export async function askPerson(port: AskPort | undefined, request: AskRequest): Promise<unknown> {
  const { typeName, schema, prompt } = askArgs(request.args);
  const location = request.at ?? { path: '', line: 0, column: 0 };
  if (!port) {
    throw markRefusedBeforeSending(
      new Error(`nobody can answer \`ask ${typeName}\` at ${where(request.at)}: there is no terminal to ask on (a durable run waits for \`turn answer\`)`),
    );
  }
  let errors;
  for (let attempt = 1; ; attempt++) {
    const answer = await port({ typeName, schema, prompt, pid: request.pid, location, attempt, ...(errors ? { errors } : {}), ...(request.signal ? { signal: request.signal } : {}) });
    const checked = checkAnswer(schema, answer);
    if (checked.ok) return checked.value;
    if (attempt >= MAX_ASKINGS) throw new Error(`the answer to \`ask ${typeName}\` at ${where(request.at)} is not a ${typeName} after ${attempt} tries: ${checked.message}`);
    errors = checked.issues;
  }
}
