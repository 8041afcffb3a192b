// The playground (docs/editor.md, *Playground*): run one function of a file with given arguments,
// and read what each model call sent and got back.
import type { RunEvent } from '../events/index.js';
import { readSourceText } from '../load.js';
import { startRun, type Run, type RunResult } from '../run/run.js';
import type { RunOptions } from '../run/options.js';
import { prepareCall, type PreparedCall } from './call.js';

export { playableFunctions, argumentsSchema, type PlayableFunction, type PlayableParam } from './functions.js';
export { prepareCall, PlaygroundError, MAX_ARGUMENT_BYTES, type PreparedCall } from './call.js';
export { inferViews, type InferView, type AttemptView, type ChatMessage } from './view.js';
export { ReplyRecording, REPLAYED_META } from './replay.js';
export { inputsFromTests, MAX_TEST_INPUTS, type TestInputs } from './from-tests.js';

export interface FunctionCallOptions extends RunOptions {
  file: string;
  /** the top-level function to call */
  name: string;
  /** JSON text, or values: an object by parameter name, or an array in parameter order */
  args: string | Record<string, unknown> | unknown[];
  /** the file's text (an unsaved editor's); default: read from disk */
  text?: string;
}

/**
 * Sets up a run of one call: the arguments checked (PlaygroundError, located, when they do not fit)
 * and the run prepared (RunSetupError when it cannot start). Every event of the run is also kept in
 * `events`, for inferViews.
 */
export async function startCall(options: FunctionCallOptions): Promise<{ run: Run; prepared: PreparedCall; events: RunEvent[] }> {
  const { name, args, text, ...runOptions } = options;
  const prepared = await prepareCall(options.file, text ?? readSourceText(options.file), name, args);
  const events: RunEvent[] = [];
  const run = await startRun({
    ...runOptions,
    entryText: prepared.entryText,
    onEvent: (e) => {
      events.push(e);
      options.onEvent?.(e);
    },
  });
  return { run, prepared, events };
}

/** Runs one call to its end: its result (the value, as `json`, when done) and its events. */
export async function callFunction(options: FunctionCallOptions): Promise<{ result: RunResult; events: RunEvent[] }> {
  const { run, events } = await startCall(options);
  const result = await run.start();
  return { result, events };
}
