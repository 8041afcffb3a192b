// The run API (docs/architecture.md): one way to run a Turn program, used by the CLI, the run
// panel and the debugger. `startRun` loads, checks and compiles a program, builds its host from one
// options object and, for a durable run, opens its store and records it; `resumeRun` continues a
// stored run (replaying its journal); both return a `Run` to start, watch, stop and inspect.
import * as path from 'node:path';
import type { Bundle } from '../compile/bundle.js';
import { compileBundle } from '../compile/index.js';
import { Durable, DivergenceError, JournalWriter, restoreRun, POLICY_VERSIONS, SEMANTICS_VERSION, UnknownOutcomeError, jsonBytes, storeMessage } from '../durable/index.js';
import { earlierModelCalls, prepareResume, ResumeRefused, sourcesOf, type FreshCode } from '../durable/runs.js';
import type { RestorePoint } from '../durable/snapshot.js';
import { hasErrors } from '../diagnostics.js';
import { InputError, loadProgram, type FileDiagnostic } from '../load.js';
import type { Host } from '../ports/host.js';
import { REMOTE_CHILD_TOOL } from '../ports/placement.js';
import { openStore, defaultStoreDir } from '../store/open.js';
import { createRunWithBundle, newRunId } from '../store/sqlite-schema.js';
import { StoreError, type JournalEntry, type RunRecord, type RunStore } from '../store/types.js';
import type { Value } from '../values/index.js';
import { Debugger, type DebuggerOptions } from '../vm/debug.js';
import { VM, type RunOutcome } from '../vm/index.js';
import { buildHost, type RunHost } from './host.js';
import { RunSetupError } from './errors.js';
import type { AuthorityOptions, RunOptions } from './options.js';
import { resolveModelSpec } from './model.js';
import { originNote, userLocation } from '../locate.js';
import { processView, processViews, type ProcessView } from '../durable/views.js';
import type { ProcessInfo } from '../vm/actors.js';
import { walk } from '../syntax/walk.js';
import type { ModelTokens } from '../telemetry/tokens.js';

/** A run-time error of the program, located in its source (message redacted). */
export type ProgramError = Extract<RunOutcome, { ok: false }>['error'];

/** How a run ended in this OS process. */
export type RunResult =
  | { kind: 'done'; value: Value; rendered: string; json: unknown }
  | { kind: 'failed'; error: ProgramError }
  /** `suspend;` committed; `resumeRun` continues it */
  | { kind: 'suspended'; runId: string }
  /**
   * an effect's outcome is unknown and may not be re-run: a person settles it (`settleUnknown`); or,
   * with `refused`, the host refused the effect before sending it (a secret not set, a grant, an
   * approval): nothing was sent, and a resume that has what was missing runs it
   */
  | { kind: 'waiting'; runId: string; unknown: JournalEntry[]; refused?: string }
  /** `stop()` ended it */
  | { kind: 'stopped'; reason: string }
  /** the durable run cannot go on: a store failure, or a replay that diverged from its journal */
  | { kind: 'aborted'; message: string };


interface Durability {
  store: RunStore;
  ownsStore: boolean;
  record: RunRecord;
  entries: JournalEntry[];
  /** a resume from the latest snapshot (issue 17): only the journal after it is replayed */
  /** a snapshot to start from, with its size in bytes (the next checkpoint waits for at least as much journal) */
  restore?: RestorePoint & { bytes?: number };
}

export class Run {
  /** undefined for a resume that waits at once (no program to run) */
  private readonly vm: VM | undefined;
  private durable: Durable | undefined;
  private started: Promise<RunResult> | undefined;
  private stopReason: string | undefined;
  private debugging = false;

  /** @internal use startRun / resumeRun */
  constructor(
    readonly bundle: Bundle | undefined,
    private readonly setup: RunHost,
    private readonly options: RunOptions,
    private readonly durability: Durability | undefined,
    /** a resume that found effects with unknown outcomes: it ends at once, waiting */
    private readonly waitingOn: JournalEntry[] | undefined = undefined,
    /** a resume that moved the run to new code (journaled) */
    readonly migration: { from: string; to: string } | undefined = undefined,
  ) {
    if (!bundle) return;
    let host: Host = setup.host;
    // output is journaled: a resume prints what the journal holds but never showed, never what it showed
    if (durability) host = { ...host, output: (line) => this.durable!.output(setup.host, line) };
    // the model calls made in this OS process: a resume's replayed replies never reach the host
    const infer = host.infer;
    host = { ...host, infer: (request, io) => infer(request, io).then((reply) => (this.countModelCall(reply), reply)) };
    const placement = options.placement;
    if (placement) host = { ...host, tool: (request) => (request.name === REMOTE_CHILD_TOOL ? placement.perform(request) : setup.host.tool!(request)) };
    this.vm = new VM(bundle, host, {
      maxSteps: options.maxSteps,
      maxAlloc: options.maxAlloc,
      maxTimeMs: options.maxTimeMs,
      seed: options.seed,
      inferRetries: setup.inferRetries,
      ...(options.context ? { context: defined(options.context) } : {}),
    });
    this.vm.placement = placement;
    const vm = this.vm;
    setup.telemetry?.bind({ ...(durability ? { runId: durability.record.id } : {}), replaying: () => this.replaying, processName: (pid) => this.processName(pid) });
    setup.attachEvents((body) => vm.events.emit(body));
    setup.allowLaunches(bundle);
    setup.setDurable(durability !== undefined);
    if (durability) {
      this.durable = new Durable(this.vm, durability.record, new JournalWriter(durability.store, durability.record.id), durability.entries);
      this.durable.onNote = options.onNote;
      this.vm.durable = this.durable;
    }
  }

  /** The model calls this run made in this OS process and their reported tokens (a resume's replayed replies are not asked again, so not counted). */
  readonly modelUsage = { calls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0 };

  private countModelCall(reply: { usage?: { inputTokens?: number; outputTokens?: number; cachedTokens?: number } }): void {
    this.modelUsage.calls++;
    this.modelUsage.inputTokens += reply.usage?.inputTokens ?? 0;
    this.modelUsage.outputTokens += reply.usage?.outputTokens ?? 0;
    this.modelUsage.cachedTokens += reply.usage?.cachedTokens ?? 0;
  }

  /** The durable run's id (undefined for a run without a store). */
  get id(): string | undefined {
    return this.durability?.record.id;
  }

  /** The store file of a durable run. */
  get storeFile(): string | undefined {
    return this.durability?.store.info().file;
  }

  /** The journal entry whose snapshot this resume restored (issue 17); undefined when it replays from the start. */
  get resumedFromSnapshot(): number | undefined {
    return this.durability?.restore && !this.debugging ? this.durability.restore.seq + 1 : undefined;
  }

  /** Lines this resume printed that the journal held but had not marked shown (a crash came between). */
  get reprintedLines(): number {
    return this.durable?.reprinted ?? 0;
  }

  /** True while a resumed run re-executes its journal's recorded part. */
  get replaying(): boolean {
    return this.durable?.replaying ?? false;
  }

  /** The requests this run sent to its model(s) in this OS process, and their tokens (a replayed call sent none). */
  tokens(): ModelTokens[] {
    return this.setup.tokens.summary();
  }

  /** Redacts the run's secrets from a text (for messages built outside the run). */
  redact(text: string): string {
    return this.setup.redactor.redact(text);
  }

  /** Redacts the run's secrets from every string of a JSON-like value (a result sent outside the run). */
  redactDeep<T>(value: T): T {
    return this.setup.redactor.redactDeep(value);
  }

  /** Attaches the VM debugger (before `start`): breakpoints, steps, pauses, exception stops, a replay to a step (time travel). */
  attachDebugger(options: DebuggerOptions | boolean = false): Debugger {
    if (this.started || !this.vm) throw new Error('attach the debugger to a run that has not started');
    this.debugging = true; // a debugged resume replays from the start, so breakpoints in the replayed part stop
    if (this.durability?.restore) {
      // it was prepared to restore a snapshot with the journal's tail only: the replay needs all of it
      const { store, record } = this.durability;
      this.durable = new Durable(this.vm, record, new JournalWriter(store, record.id), store.readJournal(record.id));
      this.durable.onNote = this.options.onNote;
      this.vm.durable = this.durable;
    }
    return new Debugger(this.vm, options);
  }

  /** Runs the program until it ends, suspends, waits or is stopped. Calling it again returns the same result. */
  start(): Promise<RunResult> {
    this.started ??= this.execute()
      .then(
        async (result) => {
          await this.setup.telemetry?.end(outcomeOf(result));
          return result;
        },
        async (e: unknown) => {
          await this.setup.telemetry?.end({ kind: 'aborted', message: this.redact(e instanceof Error ? e.message : String(e)) });
          throw e;
        },
      )
      .finally(() => this.close());
    return this.started;
  }

  /**
   * Stops the run: effects not yet sent are refused and the program ends at its next safe point
   * (a durable run keeps what its journal recorded, and can be resumed).
   */
  stop(reason = 'the run was stopped'): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.setup.refuse(reason);
    this.vm?.halt(reason);
  }

  /**
   * Interrupts the run (SIGINT, SIGTERM): writes the `interrupted` event, cancels the model calls in
   * flight and stops the program. A durable run journals nothing more (the cancelled calls keep
   * their intent only) and is left resumable: `start()` resolves `stopped`, and `turn resume`
   * continues from what was committed, asking the cancelled calls again.
   */
  interrupt(signal: string): void {
    if (this.stopReason !== undefined) return;
    this.durable?.interrupt();
    const reason = `interrupted by ${signal}`;
    this.setup.refuse(reason);
    const inflight = this.setup.cancelModelCalls(reason);
    this.setup.cancelApprovals(reason);
    this.vm?.events.emit({ kind: 'interrupted', signal, durable: this.durable !== undefined, inflight });
    this.stop(reason);
  }

  /** Every process of the run, as the editor's actor tree shows it. */
  processes(): ProcessView[] {
    return this.vm ? processViews(this.vm) : [];
  }

  /**
   * The processes of `statuses` (or a part of them) as the editor's actor tree shows them: a view
   * that updates only the actors that changed reads those, not all of `processes()`.
   */
  processesOf(infos: readonly ProcessInfo[]): ProcessView[] {
    const vm = this.vm;
    return vm ? infos.filter((i) => vm.process(i.pid) !== undefined).map((i) => processView(vm, i)) : [];
  }

  /** Every process's status and what it waits on: cheap (no tiers or values), for a view that updates at each event. */
  statuses(): ProcessInfo[] {
    return this.vm?.inspectProcesses() ?? [];
  }

  /** The function process `pid` runs (its bottom frame), or was spawned to run once it has none: how the editor names an actor. */
  processName(pid: number): string | null {
    const p = this.vm?.process(pid);
    return p?.frames[0]?.closure.name ?? p?.fn ?? null;
  }

  /** Where process `pid` stands now (null when it has ended or does not exist). */
  site(pid: number): { path: string; line: number; column: number } | null {
    const p = this.vm?.process(pid);
    return p && p.frames.length > 0 ? userLocation(this.vm!.bundle, this.vm!.site(p), this.vm!.stackTrace(p)).site : null;
  }

  private close(): void {
    this.setup.close();
    if (this.durability?.ownsStore) {
      try {
        this.durability.store.close();
      } catch {
        // already closed, or broken: its last commit stands
      }
    }
  }

  private async execute(): Promise<RunResult> {
    const vm = this.vm;
    if (this.waitingOn || !vm) return { kind: 'waiting', runId: this.id!, unknown: this.waitingOn ?? [] };
    if (!this.durable || !this.durability) {
      const outcome = await vm.run();
      if (this.stopReason !== undefined) return { kind: 'stopped', reason: this.stopReason };
      return this.programResult(outcome);
    }
    const durable = this.durable;
    const { store, record } = this.durability;
    if (this.durability.restore && !this.debugging) restoreRun(vm, durable, this.durability.restore, this.durability.restore.bytes);
    // a new run is created `running`: its start costs no commit of its own (one fsync fewer, issue 29)
    if (record.status !== 'running') store.setRunStatus(record.id, 'running');
    const first = await Promise.race([vm.run().then((outcome) => ({ kind: 'ended' as const, outcome })), durable.stopped]);
    if (first.kind === 'suspended' || first.kind === 'refused') await durable.drain();
    // local reads' results may still be in the open group: committed before the run reports its end
    if (first.kind === 'ended') durable.commitPending();
    // a run that ended while the journal stopped it reports the stop
    const stop = first.kind === 'ended' && durable.stoppedNow ? await durable.stopped : first;
    if (stop.kind === 'suspended') {
      store.setRunStatus(record.id, 'suspended');
      return { kind: 'suspended', runId: record.id };
    }
    if (stop.kind === 'refused') {
      durable.commitPending();
      store.setRunStatus(record.id, 'waiting');
      const entry = store.readJournal(record.id, stop.seq)[0];
      return { kind: 'waiting', runId: record.id, unknown: entry ? [entry] : [], refused: this.redact(stop.message) };
    }
    if (stop.kind === 'fatal') {
      const e = stop.error;
      if (e instanceof UnknownOutcomeError) {
        store.setRunStatus(record.id, 'waiting');
        return { kind: 'waiting', runId: record.id, unknown: [e.entry] };
      }
      if (!(e instanceof StoreError)) this.trySetStatus('failed', { message: e.message });
      return { kind: 'aborted', message: `${e instanceof DivergenceError ? '' : 'the run stopped: '}${this.redact(storeMessage(e))}` };
    }
    if (this.stopReason !== undefined) {
      // stopped from outside: what the journal holds stays, and the run can be resumed
      this.trySetStatus('suspended');
      return { kind: 'stopped', reason: this.stopReason };
    }
    const leftover = durable.leftover();
    if (leftover.length > 0) {
      const e = leftover[0];
      return {
        kind: 'aborted',
        message: `replay diverged: the program ended, but the journal holds ${leftover.length} more step(s), the first being step ${e.seq} (${e.kind} \`${e.name}\`); the program or its inputs changed since the run started`,
      };
    }
    const result = this.programResult(stop.outcome);
    if (result.kind === 'failed') {
      const { message, path: p, line, column } = result.error;
      this.trySetStatus('failed', { message, path: p, line, column });
    } else if (result.kind === 'done') {
      // stored for `turn runs`/`inspect` and a Restate client: redacted (a secret the program rebuilt from pieces)
      store.setRunStatus(record.id, 'done', jsonBytes(this.redactDeep({ rendered: result.rendered, json: result.json ?? null })));
      durable.journal.completed();
    }
    return result;
  }

  private programResult(outcome: RunOutcome): RunResult {
    if (outcome.ok) return { kind: 'done', value: outcome.value, rendered: outcome.rendered, json: outcome.json };
    const e = outcome.error;
    // located in user code: a std-module or generated-schema frame maps to the user's calling line
    const loc = this.bundle ? userLocation(this.bundle, e, e.stack) : undefined;
    return { kind: 'failed', error: { ...e, ...(loc?.site ?? {}), message: this.redact(e.message) + (loc ? originNote(loc) : '') } };
  }

  private trySetStatus(status: 'failed' | 'suspended', result?: unknown): void {
    try {
      this.durability!.store.setRunStatus(this.durability!.record.id, status, result === undefined ? undefined : jsonBytes(result));
    } catch {
      // the store failed: the run's last commit stands, and the journal alone is the truth
    }
  }
}


/** A run's result as its telemetry span records it. */
function outcomeOf(result: RunResult): { kind: string; message?: string } {
  if (result.kind === 'failed') return { kind: 'failed', message: result.error.message };
  if (result.kind === 'aborted') return { kind: 'aborted', message: result.message };
  return { kind: result.kind };
}

/** A compiled program, with what its check had to say short of an error. */
export interface CompiledProgram extends FreshCode {
  /** warnings and notes of the check (errors throw) */
  diagnostics: FileDiagnostic[];
  /** remarks about the program as a whole (an empty program) */
  notes: string[];
}

/** Loads and checks a program (URL schema specs fetched when not cached). Throws RunSetupError. */
export async function compileProgram(file: string, options: Pick<RunOptions, 'fetchSchemas' | 'refreshSchemas' | 'authority' | 'entryText'> = {}): Promise<CompiledProgram> {
  let loaded;
  try {
    // fetchSchemas false (`--offline`) beats a refresh: no URL is fetched at compile time
    loaded = await loadProgram(file, {
      fetch: options.fetchSchemas ?? true,
      refresh: options.fetchSchemas === false ? false : (options.refreshSchemas ?? false),
      // a stdio MCP server is launched to list its tools only under the run's --allow-run
      launch: options.fetchSchemas === false ? false : (options.authority?.allowRun ?? false),
      ...(options.authority?.allowEnv ? { allowEnv: options.authority.allowEnv } : {}),
    }, options.entryText);
  } catch (e) {
    if (e instanceof InputError) throw new RunSetupError('input', e.message);
    throw e;
  }
  if (hasErrors(loaded.diagnostics.map((d) => d.diagnostic))) {
    const first = loaded.diagnostics.find((d) => d.diagnostic.severity === 'error')!;
    throw new RunSetupError('compile', `${first.file.path} does not compile`, loaded.diagnostics);
  }
  const notes: string[] = [];
  const entry = loaded.units.find((u) => u.path === loaded.entryPath);
  if (entry && entry.program.body.length === 0) notes.push(`${file} has no statements; nothing to run`);
  return { bundle: compileBundle(loaded.units, loaded.entryPath), units: loaded.units, entryPath: loaded.entryPath, diagnostics: loaded.diagnostics, notes };
}

/** Whether any unit of the program has a `suspend;` statement. */
function suspends(units: CompiledProgram['units']): boolean {
  let found = false;
  for (const unit of units) {
    walk(unit.program, (node) => {
      if (node.kind === 'Suspend') found = true;
      return !found;
    });
  }
  return found;
}

function openRunStore(store: RunOptions['store'], cwd: string): { store: RunStore; ownsStore: boolean } {
  if (typeof store === 'object') return { store, ownsStore: false };
  try {
    return { store: openStore(store !== undefined ? path.resolve(cwd, store) : defaultStoreDir(process.env, cwd)), ownsStore: true };
  } catch (e) {
    throw new RunSetupError('store', storeMessage(e));
  }
}

/** What a durable run records about how it was started (names and paths only, never a secret). */
export interface RunMeta {
  [key: string]: unknown;
}

/** The options a durable run records, so a resume (CLI, panel or debugger) rebuilds the same host. */
type RecordedOptions = Pick<RunOptions, 'model' | 'calibration' | 'maxSteps' | 'maxAlloc' | 'maxTimeMs' | 'toolTimeoutMs' | 'seed' | 'inferRetries' | 'context' | 'maxTokens' | 'temperature' | 'consistency'> & { authority?: Omit<AuthorityOptions, 'vault' | 'approve'> & { approve?: 'all' | 'none' | 'ask' } };

const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

function recordable(options: RunOptions): RecordedOptions {
  const env = options.env ?? process.env;
  const { vault: _vault, approve, ...authority } = options.authority ?? {};
  return defined({
    model: resolveModelSpec(options.model, env, options.cwd ?? process.cwd()),
    maxSteps: options.maxSteps,
    maxAlloc: options.maxAlloc,
    context: options.context,
    maxTimeMs: options.maxTimeMs,
    toolTimeoutMs: options.toolTimeoutMs,
    seed: options.seed,
    inferRetries: options.inferRetries,
    maxTokens: options.maxTokens,
    temperature: options.temperature,
    consistency: options.consistency,
    // relative to the run's cwd, which is recorded too
    calibration: options.calibration,
    authority: { ...defined(authority), ...(typeof approve === 'string' ? { approve } : {}) },
  });
}

/** The recorded options under what this resume says (what it leaves unset, the record decides). */
function withRecorded<T extends RunOptions>(options: T, record: RunRecord): T {
  const recorded = (record.meta.options ?? {}) as RecordedOptions;
  // relative grants and files resolve where the run started, wherever it is resumed from
  const cwd = typeof record.meta.cwd === 'string' ? record.meta.cwd : undefined;
  return {
    ...recorded,
    ...(cwd !== undefined ? { cwd } : {}),
    ...defined(options),
    authority: { ...(recorded.authority ?? {}), ...defined(options.authority ?? {}) },
  } as T;
}

/**
 * Prepares a new run of `options.file`: loads, checks and compiles it, builds its host, and with
 * `options.store` opens the store and records the run. Throws RunSetupError.
 */
export async function startRun(options: RunOptions & { file: string; meta?: RunMeta; /** a durable run's id, chosen by the caller (default: generated) */ id?: string }): Promise<Run & Pick<CompiledProgram, 'diagnostics' | 'notes'>> {
  const cwd = options.cwd ?? process.cwd();
  let runId: string | undefined;
  let storelessId: string | undefined;
  // the host first: a bad model spec or secrets file is reported before the program is compiled
  const setup = await buildHost(options, () => runId ?? (storelessId ??= newRunId()), { program: path.basename(options.file) });
  let code;
  try {
    code = await compileProgram(options.file, options);
  } catch (e) {
    setup.close();
    throw e;
  }
  // Turn v1 persists a run that reaches `suspend;`: a plain run of such a program becomes durable
  const storeOption = options.store ?? (options.storeIfSuspends !== undefined && suspends(code.units) ? options.storeIfSuspends : undefined);
  if (storeOption !== undefined && options.store === undefined) code.notes.push('the program can suspend, so this run is durable (resume it with `turn resume RUN`)');
  code.notes.push(...setup.notes);
  let durability: Durability | undefined;
  if (storeOption !== undefined) {
    const { store, ownsStore } = openRunStore(storeOption, cwd);
    try {
      // the bundle and the run in one commit (one fsync)
      const record = createRunWithBundle(
        store,
        {
          ...(options.id !== undefined ? { id: options.id } : {}),
          entry: options.file,
          bytecodeHash: code.bundle.version,
          semanticsVersion: SEMANTICS_VERSION,
          policies: POLICY_VERSIONS,
          // the run's span: the resumes' spans link to it (runtime/telemetry)
          meta: { cwd, pid: process.pid, options: recordable(options), ...(setup.telemetry ? { traceparent: setup.telemetry.root } : {}), ...(options.meta ?? {}) },
        },
        { hash: code.bundle.version, bytes: sourcesOf(code.units, code.entryPath) },
      );
      runId = record.id;
      durability = { store, ownsStore, record, entries: [] };
    } catch (e) {
      setup.close();
      if (ownsStore) store.close();
      throw new RunSetupError('store', storeMessage(e));
    }
  }
  return Object.assign(new Run(code.bundle, setup, options, durability), { diagnostics: code.diagnostics, notes: code.notes });
}

/**
 * Prepares the resume of stored run `runId` (suspended, waiting or killed): its recorded results
 * are replayed, never re-asked. With `migrate`, a run at a wait point first moves to the current
 * code of its entry file (journaled). Throws RunSetupError (kind `refused` with `run` for a run that has ended).
 */
export async function resumeRun(options: RunOptions & { runId: string; migrate?: boolean }): Promise<Run & { notes: string[] }> {
  const cwd = options.cwd ?? process.cwd();
  const { store, ownsStore } = openRunStore(options.store, cwd);
  const fail = (e: unknown): never => {
    if (ownsStore) store.close();
    if (e instanceof RunSetupError) throw e;
    if (e instanceof ResumeRefused) throw Object.assign(new RunSetupError(e.reason === 'compile' ? 'compile' : 'refused', e.message), { run: e.run });
    if (e instanceof StoreError) throw new RunSetupError('store', e.message);
    throw e;
  };
  let prepared;
  try {
    prepared = await prepareResume(
      store,
      options.runId,
      options.migrate
        ? () => {
            const record = store.getRun(options.runId)!;
            return compileProgram(path.resolve(String(record.meta.cwd ?? cwd), record.entry), options);
          }
        : undefined,
    );
  } catch (e) {
    return fail(e);
  }
  let setup;
  options = withRecorded(options, prepared.run);
  try {
    const recorded = prepared.run.meta.traceparent;
    setup = await buildHost(options, () => options.runId, { program: path.basename(prepared.run.entry), ...(typeof recorded === 'string' ? { resumes: recorded } : {}) });
  } catch (e) {
    return fail(e);
  }
  // the model calls made before count against the model budgets again (their journaled replies)
  const model = setup.capabilities.model;
  try {
    if (model?.calls !== undefined || model?.tokens !== undefined) setup.chargeEarlierCalls(earlierModelCalls(options.runId, store.readJournal(options.runId)));
  } catch (e) {
    setup.close();
    return fail(e);
  }
  if (prepared.kind === 'waiting') {
    return Object.assign(new Run(undefined, setup, options, { store, ownsStore, record: prepared.run, entries: [] }, prepared.unknown), { notes: setup.notes });
  }
  const migration = prepared.migratedFrom ? { from: prepared.migratedFrom, to: prepared.bundle.version } : undefined;
  const durability = { store, ownsStore, record: prepared.run, entries: prepared.entries, ...(prepared.restore ? { restore: prepared.restore } : {}) };
  return Object.assign(new Run(prepared.bundle, setup, options, durability, undefined, migration), { notes: [...(prepared.note ? [prepared.note] : []), ...setup.notes] });
}
