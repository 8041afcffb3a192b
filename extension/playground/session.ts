// One playground run, extension-host side without `vscode` (unit-tested in Node): a function of
// the file called with the form's arguments (runtime/playground), or a test case (the wrapper
// `turn test` runs it through), under the settings' run options; what the result pane shows is
// built from the run's events. Each run leaves a recording of its replies, which the next run
// replays where its request is unchanged (re-run on save).
import {
  startCall, formatDiagnostic, inferViews, PlaygroundError, REPLAYED_META, ReplyRecording, RunSetupError, startRun, testProgram, Uncertain,
  CassetteError, cassettePath, readCassette, type RunEvent, type RunOptions, type RunResult,
} from '../../runtime/index.js';
import * as path from 'node:path';
import type { PlayParameters, PlayResultView, PlayTargetRef } from './protocol.js';

export interface PlayRequest {
  file: string;
  target: PlayTargetRef;
  /** a function's arguments, JSON text (an object by parameter name) */
  args: string;
  /** the file's text (an unsaved editor's); default: read from disk */
  text?: string;
  /** the settings' run options (model, grants, budgets, sampling) */
  options: RunOptions;
  /** the last run's replies, replayed where a request is unchanged */
  recording?: ReplyRecording;
  /** stops the run (a newer run, the panel closed) */
  signal?: AbortSignal;
}

/** The most lines of the program's output the pane keeps (the first ones). */
export const MAX_OUTPUT_LINES = 500;

function parametersOf(options: RunOptions): PlayParameters {
  return {
    model: options.model ?? options.env?.TURN_MODEL ?? 'mock',
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.inferRetries !== undefined ? { inferRetries: options.inferRetries } : {}),
    ...(options.consistency !== undefined ? { consistency: options.consistency } : {}),
  };
}

function outcome(result: RunResult): Pick<PlayResultView, 'status' | 'value' | 'rendered' | 'confidence' | 'error'> {
  switch (result.kind) {
    case 'done':
      return {
        status: 'done',
        value: JSON.stringify(result.json ?? null, null, 2),
        rendered: result.rendered,
        ...(result.value instanceof Uncertain ? { confidence: result.value.c } : {}),
      };
    case 'failed':
      return { status: 'failed', error: `${result.error.path}:${result.error.line}:${result.error.column}: ${result.error.message}` };
    case 'suspended':
      return { status: 'suspended', error: `the run suspended (run ${result.runId}): the playground does not resume runs` };
    case 'waiting':
      return { status: 'waiting', error: result.refused ?? 'an effect\'s outcome is unknown' };
    case 'stopped':
      return { status: 'stopped', error: result.reason };
    case 'aborted':
      return { status: 'aborted', error: result.message };
  }
}

/** Tokens spent: the replies the model gave (a replayed reply cost nothing this time). */
function tokensOf(events: readonly RunEvent[]): PlayResultView['tokens'] {
  const t = { input: 0, output: 0, cached: 0 };
  for (const e of events) {
    if (e.kind !== 'infer.reply' || e.meta?.[REPLAYED_META] === true) continue;
    t.input += e.usage?.inputTokens ?? 0;
    t.output += e.usage?.outputTokens ?? 0;
    t.cached += e.usage?.cachedTokens ?? 0;
  }
  return t;
}

function refused(e: unknown, parameters: PlayParameters): PlayResultView | undefined {
  let error: string | undefined;
  if (e instanceof PlaygroundError) error = e.message;
  else if (e instanceof RunSetupError) {
    const d = e.diagnostics.find((x) => x.diagnostic.severity === 'error');
    error = d ? formatDiagnostic(d.file, d.diagnostic) : e.message;
  }
  if (error === undefined) return undefined;
  return { ...refusedView(parameters), error };
}

function refusedView(parameters: PlayParameters): PlayResultView {
  return { status: 'refused', output: [], infers: [], parameters, tokens: { input: 0, output: 0, cached: 0 }, durationMs: 0, replayed: 0 };
}

/**
 * A test case's program as `turn test` runs it (its wrapper) and, when its cassette holds a recording
 * of it, the script model that answers from that recording (as `turn test` replays: a request the
 * recording does not hold fails the test, as a stale recording does). Throws CassetteError.
 */
function testRun(file: string, name: string): { program: string; model?: string; recording?: string } {
  const cassette = readCassette(cassettePath(file));
  const exchanges = cassette?.cassette.tests[name]?.exchanges;
  const prepared = testProgram(file, name, exchanges);
  return { program: prepared.program, ...(prepared.model !== undefined && cassette ? { model: prepared.model, recording: cassette.file } : {}) };
}

/** Runs the request to its end. Returns the pane's view and this run's recording (for the next run). */
export async function play(request: PlayRequest): Promise<{ view: PlayResultView; recording: ReplyRecording }> {
  let test: ReturnType<typeof testRun> | undefined;
  if (request.target.kind === 'test') {
    try {
      test = testRun(request.file, request.target.name);
    } catch (e) {
      if (!(e instanceof CassetteError)) throw e;
      return { view: { ...refusedView(parametersOf(request.options)), error: e.message }, recording: request.recording ?? new ReplyRecording() };
    }
  }
  // a recorded test answers from its recording, whatever the settings' model
  const parameters = parametersOf(test?.model !== undefined ? { ...request.options, model: `the test's recording in ${path.basename(test.recording ?? '')}` } : request.options);
  const output: string[] = [];
  const events: RunEvent[] = [];
  const recording = request.recording;
  const options: RunOptions = {
    ...request.options,
    onOutput: (line) => {
      if (output.length < MAX_OUTPUT_LINES) output.push(line);
    },
    onEvent: (e) => events.push(e),
    ...(recording ? { replayReply: (r) => recording.reply(r) } : {}),
  };
  const started = performance.now();
  let result: RunResult;
  try {
    const run =
      test === undefined
        ? (await startCall({ ...options, file: request.file, name: request.target.name, args: request.args, ...(request.text !== undefined ? { text: request.text } : {}) })).run
        : await startRun({ ...options, file: test.program, ...(test.model !== undefined ? { model: test.model } : {}) });
    const stop = (): void => run.stop('a newer run replaced it');
    if (request.signal?.aborted) stop();
    request.signal?.addEventListener('abort', stop, { once: true });
    try {
      result = await run.start();
    } finally {
      request.signal?.removeEventListener('abort', stop);
    }
  } catch (e) {
    const view = refused(e, parameters);
    if (view) return { view, recording: recording ?? new ReplyRecording() };
    throw e;
  }
  const view: PlayResultView = {
    ...outcome(result),
    output,
    infers: inferViews(events),
    parameters,
    tokens: tokensOf(events),
    durationMs: Math.round(performance.now() - started),
    replayed: recording?.replayed ?? 0,
  };
  return { view, recording: ReplyRecording.fromEvents(events) };
}
