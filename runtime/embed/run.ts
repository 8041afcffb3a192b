// Runs for an embedding app (docs/embedding.md): a facade over the run API the CLI, the run panel
// and the debugger share (runtime/run/): the same loading, checking, host and capability checks,
// with options an app can write (options.ts) and results it can switch on.
import { compileProgram, resumeRun as resumeRunApi, startRun as startRunApi, type Run, type RunResult } from '../run/run.js';
import { RunSetupError } from '../run/errors.js';
import { confidenceOf } from '../values/index.js';
import type { RunEvent } from '../events/index.js';
import { loadProgram, InputError, type FileDiagnostic } from '../load.js';
import { checkSource } from '../check/index.js';
import { formatDiagnostic, type Severity } from '../diagnostics.js';
import type { ProcessView } from '../durable/views.js';
import { EventFeed } from './events.js';
import { asTurnError, TurnError } from './errors.js';
import { runOptionsOf, storeOf, type TurnOptions } from './options.js';

/** The model calls this run made in this OS process (a resume's replayed calls are not made again, so not counted). */
export interface Usage {
  /** model exchanges made (a re-ask after an invalid reply is one more; k consistency samples are one) */
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

/** A located run-time error of the program. */
export interface ProgramFailure {
  message: string;
  path: string;
  line: number;
  column: number;
}

/** How a run ended, by `status`. `runId` is set for a durable run (one with a store). */
export type TurnResult<T = unknown> = { runId?: string; usage: Usage } & (
  | { status: 'done'; value: T; confidence: number; rendered: string }
  | { status: 'failed'; error: ProgramFailure }
  /** `suspend;` committed: `resumeRun(runId)` continues it */
  | { status: 'suspended'; runId: string }
  /** an effect's outcome is unknown, or the host refused an effect before sending it (`reason`): a person decides */
  | { status: 'waiting'; runId: string; reason: string }
  /** `stop()` or the signal ended it (a durable run stays resumable) */
  | { status: 'stopped'; reason: string }
  /** a durable run cannot go on (a store failure, a replay that diverged) */
  | { status: 'aborted'; reason: string }
);

/** A run that has been set up: start it with `result()`, watch it with `events()`, end it with `stop()`. */
export class TurnRun {
  private readonly feed = new EventFeed();
  private pending: Promise<TurnResult> | undefined;

  /** @internal use startRun / resumeRun */
  constructor(
    private readonly run: Run,
    private readonly signal: AbortSignal | undefined,
    /** warnings of the check, `FILE:LINE:COL: warning: ...` */
    readonly warnings: string[],
  ) {}

  /** The durable run's id (undefined without a store). */
  get id(): string | undefined {
    return this.run.id;
  }

  /** @internal each event of the run, from the run API */
  onEvent(event: RunEvent): void {
    this.feed.push(event);
  }

  /** The run's events from now until it ends (call before `result()` to see them all). */
  events(): AsyncIterable<RunEvent> {
    return this.feed.iterate();
  }

  /** Runs the program (once; later calls return the same result). */
  result(): Promise<TurnResult> {
    this.pending ??= this.execute();
    return this.pending;
  }

  /** Stops the run at its next safe point: effects not yet sent are refused; a durable run stays resumable. */
  stop(reason = 'the run was stopped'): void {
    this.run.stop(reason);
  }

  /** Every process of the run (status, context tiers, memory, mailbox). */
  processes(): ProcessView[] {
    return this.run.processes();
  }

  private async execute(): Promise<TurnResult> {
    const onAbort = (): void => this.run.stop(abortReason(this.signal));
    if (this.signal?.aborted) onAbort();
    this.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return this.resultOf(await this.run.start());
    } finally {
      this.signal?.removeEventListener('abort', onAbort);
      this.feed.end();
    }
  }

  private resultOf(r: RunResult): TurnResult {
    const { calls, inputTokens, outputTokens, cachedTokens } = this.run.modelUsage;
    const base = { ...(this.run.id !== undefined ? { runId: this.run.id } : {}), usage: { modelCalls: calls, inputTokens, outputTokens, cachedTokens } };
    switch (r.kind) {
      case 'done':
        // the value may hold a secret the program rebuilt from pieces: redacted like its output
        return { ...base, status: 'done', value: this.run.redactDeep(r.json ?? null), confidence: confidenceOf(r.value), rendered: this.run.redact(r.rendered) };
      case 'failed': {
        const { message, path, line, column } = r.error;
        return { ...base, status: 'failed', error: { message, path, line, column } };
      }
      case 'suspended':
        return { ...base, status: 'suspended', runId: r.runId };
      case 'waiting':
        return { ...base, status: 'waiting', runId: r.runId, reason: r.refused ?? `an effect's outcome is unknown (step ${r.unknown.map((e) => e.seq).join(', ')}): settle it (turn resolve ${r.runId} STEP)` };
      case 'stopped':
        return { ...base, status: 'stopped', reason: r.reason };
      case 'aborted':
        return { ...base, status: 'aborted', reason: r.message };
    }
  }
}

function abortReason(signal: AbortSignal | undefined): string {
  const r: unknown = signal?.reason;
  return r instanceof Error && r.name !== 'AbortError' ? `aborted: ${r.message}` : typeof r === 'string' ? `aborted: ${r}` : 'the caller aborted the run';
}

/** A durable run's id an app chooses: letters, digits and `_ . : -`, at most 128. */
const RUN_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export function checkRunId(id: string): void {
  if (typeof id !== 'string' || !RUN_ID.test(id)) throw new TurnError('usage', `"${String(id).slice(0, 40)}" is not a run id (letters, digits and _ . : -, at most 128)`);
}

/** Options of a new run; `id` names a durable run (with `store`). */
export interface StartOptions extends TurnOptions {
  id?: string;
  /** recorded with a durable run (names and hashes, never a secret) */
  meta?: Record<string, unknown>;
}

/** Sets up a new run of the program in `file` (loaded, checked, compiled; not yet started). Throws TurnError. */
export async function startRun(file: string, options: StartOptions = {}): Promise<TurnRun> {
  const id = Object.hasOwn(options, 'id') ? options.id : undefined;
  if (id !== undefined) {
    checkRunId(id);
    if (options.store === undefined) throw new TurnError('usage', 'a run id names a durable run: give a store too');
  }
  let turnRun: TurnRun | undefined;
  const store = storeOf(options.store);
  let run;
  try {
    run = await startRunApi({
      ...runOptionsOf(options),
      file,
      ...(store !== undefined ? { store } : {}),
      ...(id !== undefined ? { id } : {}),
      ...(options.meta !== undefined ? { meta: { ...options.meta } } : {}),
      onEvent: (e) => {
        turnRun?.onEvent(e);
        options.onEvent?.(e);
      },
    });
  } catch (e) {
    return asTurnError(e);
  }
  turnRun = new TurnRun(run, options.signal, run.diagnostics.map((d) => formatDiagnostic(d.file, d.diagnostic)));
  return turnRun;
}

/** Sets up the resume of stored run `runId` (suspended, waiting, or cut short by a crash); `store` is required. Throws TurnError. */
export async function resumeRun(runId: string, options: TurnOptions & { store: NonNullable<TurnOptions['store']> }): Promise<TurnRun> {
  checkRunId(runId);
  const store = storeOf(options.store);
  if (store === undefined) throw new TurnError('usage', 'resumeRun needs the store the run is in');
  let turnRun: TurnRun | undefined;
  let run;
  try {
    run = await resumeRunApi({
      ...runOptionsOf(options),
      runId,
      store,
      onEvent: (e) => {
        turnRun?.onEvent(e);
        options.onEvent?.(e);
      },
    });
  } catch (e) {
    return asTurnError(e);
  }
  turnRun = new TurnRun(run, options.signal, []);
  return turnRun;
}

/** Runs the program in `file` to its end: `startRun` then `result()`. */
export async function run(file: string, options: StartOptions = {}): Promise<TurnResult> {
  return (await startRun(file, options)).result();
}

/** One diagnostic of a check. */
export interface CheckDiagnostic {
  file: string;
  line: number;
  column: number;
  severity: Severity;
  message: string;
  /** `FILE:LINE:COL: message`, as `turn check` prints it */
  text: string;
}

export interface CheckReport {
  /** no errors (warnings may remain) */
  ok: boolean;
  diagnostics: CheckDiagnostic[];
}

/**
 * Checks a program without running it: a file (with the modules it uses), or a source text (named
 * `file` in messages; `use` paths resolve beside it). Schema specs are read from the cache only.
 */
export async function check(input: { file: string } | { source: string; file?: string }): Promise<CheckReport> {
  let found: FileDiagnostic[];
  try {
    if ('source' in input) {
      if (typeof input.source !== 'string') throw new TurnError('usage', 'source must be a string');
      const checked = await checkSource(input.file ?? '<source>.tn', input.source, { fetch: false });
      found = checked.diagnostics.map((diagnostic) => ({ file: checked.file, diagnostic }));
    } else {
      found = (await loadProgram(input.file, { fetch: false })).diagnostics;
    }
  } catch (e) {
    if (e instanceof InputError) throw new TurnError('input', e.message);
    throw e;
  }
  const diagnostics = found.map(({ file, diagnostic }) => {
    const { line, column } = file.position(diagnostic.span.start);
    return { file: file.path, line, column, severity: diagnostic.severity, message: diagnostic.message, text: formatDiagnostic(file, diagnostic) };
  });
  return { ok: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
}

/** Compiles the program in `file` (checked, its modules loaded): throws TurnError (kind `compile`, located) when it does not compile. */
export async function compile(file: string): Promise<{ version: string; warnings: string[] }> {
  try {
    const code = await compileProgram(file, { fetchSchemas: false });
    return { version: code.bundle.version, warnings: code.diagnostics.map((d) => formatDiagnostic(d.file, d.diagnostic)) };
  } catch (e) {
    if (e instanceof RunSetupError) return asTurnError(e);
    throw e;
  }
}
