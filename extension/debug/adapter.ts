// The Turn debug adapter (DAP, @vscode/debugadapter) over the VM debugger of runtime/vm/debug.ts.
// Each actor is a thread, named by the function it runs; scopes are Locals, Context (P0/P1/P2) and
// Memory; stops are breakpoints (with conditions, hit counts and logpoints), steps, pauses,
// run-time errors (exception breakpoints) and — with `stopOnEffects` — a process waiting on a
// model reply, an effect or an approval. The whole run stops together (`allThreadsStopped`), and
// Continue resumes every actor.
//
// Time travel: every run under the debugger is durable — in its store, or in a journal kept in
// memory for the session — so Step Back and Reverse Continue re-execute the run from its start
// with the journal feeding every recorded result (the one replay, runtime/durable) up to the
// earlier step; going forward again meets the same states.
//
// No `vscode` import: the extension runs it inline (with the vault); dist/debug-adapter.js runs it
// over stdio (tests, other editors).
import * as path from 'node:path';
import {
  Breakpoint, InitializedEvent, LoggingDebugSession, OutputEvent, Scope, Source, StackFrame, StoppedEvent, TerminatedEvent, ExitedEvent, Thread,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { children, row, type Expand, type Row } from './variables.js';
import { hostModelsOption } from '../lm/host-models.js';
import {
  Debugger, DEFAULT_MODEL, countTokens, formatDiagnostic, MemoryRunStore, resumeRun, RunSetupError, startRun,
  type ApprovalHook, type AuthorityOptions, type BreakpointSpec, type EffectWait, type ExceptionFilter, type Run, type RunOptions, type RunResult,
  type RunStore, type StopEvent, type Value, type Vault,
} from '../../runtime/index.js';

export interface TurnLaunchArgs extends DebugProtocol.LaunchRequestArguments {
  program: string;
  model?: string;
  stopOnEntry?: boolean;
  /** stop when a process waits on a model reply, an effect or an approval */
  stopOnEffects?: boolean;
  cwd?: string;
  /** what the program may do (the `turn.run.*` settings, as extension/settings.ts reads them) */
  authority?: Omit<AuthorityOptions, 'vault' | 'approve'>;
  /** the run's budgets (`turn.run.maxSteps`, `maxAlloc`, `maxTimeSeconds`, `toolTimeoutSeconds`) */
  maxSteps?: number;
  maxAlloc?: number;
  maxTimeMs?: number;
  toolTimeoutMs?: number;
  /** token budgets of the context tiers (`turn.run.contextWorking`, `contextEpisodic`) */
  context?: { working?: number; episodic?: number };
  /** resume this suspended durable run (`turn run --store`) instead of starting `program`: recorded results are replayed */
  resume?: string;
  /** the store folder of the run: `resume`'s (default: the CLI's default store, .turn/), or where a new debugged run is recorded (default: in memory) */
  store?: string;
}

export interface AdapterOptions {
  vault?: Vault;
  approve?: ApprovalHook;
}

type VarRef = { kind: 'locals'; pid: number; frame: number } | { kind: 'context'; pid: number } | { kind: 'memory'; pid: number } | Expand;

// DAP `reason`s stay short words: VS Code's Call Stack shows a stopped thread's `description`
// beside its name, and a long one there leaves no room for the name (the actor's). So the
// description is a short label and the whole story (a long approval summary, an error message,
// how a step back got there) goes in `text`.
const STOP_REASONS: Record<StopEvent['reason'], string> = {
  entry: 'entry', breakpoint: 'breakpoint', step: 'step', pause: 'pause', goto: 'step', exception: 'exception',
  model: 'model reply', effect: 'effect', approval: 'approval',
};
/** The longest stop description shown beside a thread's name; longer ones are cut (whole in `text`). */
export const STOP_LABEL_MAX = 40;

/** A stop's short label (the event's `description`) and its full text. */
export function stopLabel(label: string, detail?: string): { description: string; text: string } {
  const description = label.length > STOP_LABEL_MAX ? `${label.slice(0, STOP_LABEL_MAX - 1).trimEnd()}…` : label;
  return { description, text: detail ? `${label} (${detail})` : label };
}

const EXCEPTION_FILTERS: DebugProtocol.ExceptionBreakpointsFilter[] = [
  { filter: 'uncaught', label: 'Uncaught Errors', description: 'Stop where an error ends the actor that raised it (no `catch` takes it)', default: true },
  { filter: 'all', label: 'All Errors', description: 'Stop where any error is raised, also one a `catch` takes', default: false },
];

export class TurnDebugSession extends LoggingDebugSession {
  private run: Run | undefined;
  private dbg: Debugger | undefined;
  /** bumped when a run is replaced (time travel): events of the replaced run are dropped */
  private generation = 0;
  private started: Promise<RunResult> | undefined;
  private configured!: Promise<void>;
  private configuredResolve!: () => void;
  private pendingBreakpoints = new Map<string, BreakpointSpec[]>();
  /** VS Code sends its choice (by default "uncaught", as EXCEPTION_FILTERS says); a client that sends none gets none */
  private exceptionFilters: ExceptionFilter[] = [];
  private refs = new Map<number, VarRef>();
  private nextRef = 1;
  private stopOnEffects = false;
  /** what a replay needs to rebuild the run: its options, id and store */
  private runOptions: RunOptions | undefined;
  private store: string | RunStore | undefined;
  /** output up to this step was printed already: a replay to an earlier step does not print it again */
  private printedUpTo = 0;
  private traveling = false;
  private ended = false;

  constructor(private readonly options: AdapterOptions = {}) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    this.configured = new Promise((r) => (this.configuredResolve = r));
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    // (a client may start another session in the same adapter process: it configures that one anew)
    this.configured = new Promise((r) => (this.configuredResolve = r));
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsEvaluateForHovers: true,
      supportsTerminateRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsStepBack: true,
      supportsExceptionInfoRequest: true,
      exceptionBreakpointFilters: EXCEPTION_FILTERS,
    };
    this.sendResponse(response);
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configuredResolve();
    this.sendResponse(response);
  }

  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: TurnLaunchArgs): void {
    this.launch(response, args).catch((e: unknown) => this.sendErrorResponse(response, 5, `cannot launch: ${e instanceof Error ? e.message : String(e)}`));
  }

  private async launch(response: DebugProtocol.LaunchResponse, args: TurnLaunchArgs): Promise<void> {
    const program = path.resolve(args.program ?? '.');
    this.stopOnEffects = Boolean(args.stopOnEffects);
    const options: RunOptions = {
      cwd: args.cwd ?? path.dirname(program),
      model: args.model ?? DEFAULT_MODEL,
      ...hostModelsOption(),
      ...(args.maxSteps !== undefined ? { maxSteps: args.maxSteps } : {}),
      ...(args.maxAlloc !== undefined ? { maxAlloc: args.maxAlloc } : {}),
      ...(args.maxTimeMs !== undefined ? { maxTimeMs: args.maxTimeMs } : {}),
      ...(args.toolTimeoutMs !== undefined ? { toolTimeoutMs: args.toolTimeoutMs } : {}),
      ...(args.context !== undefined ? { context: args.context } : {}),
      authority: { ...(args.authority ?? {}), ...(this.options.vault ? { vault: this.options.vault } : {}), approve: this.options.approve ?? 'none' },
      onOutput: (line) => {
        if (this.dbg && this.dbg.tick < this.printedUpTo) return;
        this.sendEvent(new OutputEvent(line + '\n', 'stdout'));
      },
      // with `stopOnEffects`, a process about to wait on the host stops the debugger first
      beforeEffect: (wait: EffectWait) => (this.stopOnEffects && this.dbg ? this.dbg.hold(wait.pid, wait.kind, wait.description) : Promise.resolve()),
    };
    this.runOptions = options;
    // (a client may launch again in the same adapter process)
    this.ended = false;
    this.generation++;
    this.printedUpTo = 0;
    // a run without a store keeps its journal in memory for the session: stepping back replays it
    this.store = args.store ?? (args.resume ? undefined : new MemoryRunStore('debug session'));
    let run: Run;
    try {
      run = args.resume
        ? await resumeRun({ ...options, runId: args.resume, ...(args.store !== undefined ? { store: args.store } : {}) })
        : await startRun({ ...options, file: program, ...(this.store !== undefined ? { store: this.store } : {}) });
    } catch (e) {
      if (e instanceof RunSetupError && e.diagnostics.length > 0) {
        const text = e.diagnostics.map((d) => formatDiagnostic(d.file, d.diagnostic)).join('\n');
        this.sendErrorResponse(response, 2, `${path.basename(program)} does not compile:\n${text}`);
      } else if (args.resume) {
        this.sendErrorResponse(response, 4, `cannot resume run ${args.resume}: ${(e as Error).message}`);
      } else {
        this.sendErrorResponse(response, 1, `cannot load ${program}: ${(e as Error).message}`);
      }
      return;
    }
    this.run = run;
    if (run.bundle) this.attach(run, { stopOnEntry: Boolean(args.stopOnEntry) }); // (a resume that waits at once has no program to run)
    this.sendResponse(response);
    await this.configured;
    if (this.dbg) this.dbg.exceptions = new Set(this.exceptionFilters);
    this.begin(run);
  }

  /** Starts `run` and reports how it ends (unless a replay replaced it meanwhile). */
  private begin(run: Run): void {
    const generation = this.generation;
    this.started = run.start();
    this.started.then(
      async (result) => {
        // stopped at the error that ended the run: the session ends when the person goes on
        while (this.dbg?.paused && generation === this.generation) await this.dbg.paused;
        if (generation !== this.generation) return;
        let code = 0;
        switch (result.kind) {
          case 'failed': {
            const e = result.error;
            this.sendEvent(new OutputEvent(`${e.path}:${e.line}:${e.column}: runtime error: ${e.message}\n`, 'stderr'));
            code = 1;
            break;
          }
          case 'suspended':
            this.sendEvent(new OutputEvent(`suspended: ${result.runId}${this.store instanceof MemoryRunStore ? ' (this debug session kept its journal in memory: launch with a "store" to resume it later)' : ''}\n`, 'console'));
            break;
          case 'waiting':
            this.sendEvent(new OutputEvent(`waiting: run ${result.runId} waits for a decision about step ${result.unknown.map((x) => x.seq).join(', ')} (turn resolve)\n`, 'stderr'));
            code = 3;
            break;
          case 'aborted':
          case 'stopped':
            this.sendEvent(new OutputEvent(`${result.kind === 'aborted' ? result.message : result.reason}\n`, 'stderr'));
            code = 1;
            break;
        }
        this.end(code);
      },
      (err: unknown) => {
        if (generation !== this.generation) return;
        this.sendEvent(new OutputEvent(`internal error: ${String(err)}\n`, 'stderr'));
        this.end(1);
      },
    );
  }

  private end(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.sendEvent(new ExitedEvent(code));
    this.sendEvent(new TerminatedEvent());
  }

  private attach(run: Run, options: { stopOnEntry?: boolean; stopAtTick?: number; reason?: StopEvent['reason'] }): void {
    const dbg = run.attachDebugger({ stopOnEntry: options.stopOnEntry, stopAtTick: options.stopAtTick, exceptions: this.exceptionFilters });
    this.dbg = dbg;
    let first = true;
    dbg.onStop = (e) => {
      this.refs.clear();
      const entry = options.stopOnEntry && e.reason === 'pause' && first;
      first = false;
      const reason = entry ? 'entry' : e.reason === 'goto' && options.reason ? STOP_REASONS[options.reason] : STOP_REASONS[e.reason];
      const back = options.reason === 'breakpoint' ? `breakpoint (back at step ${e.tick})` : options.reason === 'entry' ? 'back at the start' : `stepped back to step ${e.tick}`;
      const ev: DebugProtocol.StoppedEvent = new StoppedEvent(reason, e.pid);
      const { description, text } =
        e.reason === 'goto' ? stopLabel(back, "the run re-executed from its start with the journal's recorded results")
        : run.replaying ? stopLabel(e.description, 'replaying the journal: recorded results')
        : stopLabel(e.description);
      ev.body.description = description;
      ev.body.text = text;
      // one scheduler runs every actor: when one stops, all do, and Continue resumes them all
      ev.body.allThreadsStopped = true;
      // the step the run stands on (time travel; tests compare states by it)
      (ev.body as { turnStep?: number }).turnStep = e.tick;
      this.sendEvent(ev);
    };
    dbg.onLog = (text) => this.sendEvent(new OutputEvent(text + '\n', 'console'));
    for (const [file, specs] of this.pendingBreakpoints) dbg.setBreakpoints(file, specs);
  }

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    const file = path.resolve(args.source.path ?? '');
    const specs: BreakpointSpec[] = (args.breakpoints ?? []).map((b) => ({
      line: b.line,
      ...(b.condition ? { condition: b.condition } : {}),
      ...(b.hitCondition ? { hitCondition: b.hitCondition } : {}),
      ...(b.logMessage ? { logMessage: b.logMessage } : {}),
    }));
    this.pendingBreakpoints.set(file, specs);
    const bound = this.dbg ? this.dbg.setBreakpoints(file, specs) : specs.map((s) => ({ line: s.line, message: undefined }));
    response.body = {
      breakpoints: bound.map((b, i) => {
        const bp = new Breakpoint(b.line !== null, b.line ?? specs[i].line) as DebugProtocol.Breakpoint;
        if (b.message) bp.message = b.message;
        return bp;
      }),
    };
    this.sendResponse(response);
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    this.exceptionFilters = args.filters.filter((f): f is ExceptionFilter => f === 'uncaught' || f === 'all');
    if (this.dbg) this.dbg.exceptions = new Set(this.exceptionFilters);
    this.sendResponse(response);
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    const stop = this.dbg?.errorStop;
    if (!stop || stop.pid !== args.threadId) {
      this.sendErrorResponse(response, 6, `thread ${args.threadId} is not stopped at an error`);
      return;
    }
    const type = stop.value instanceof Map && typeof stop.value.get('type') === 'string' ? (stop.value.get('type') as string) : 'error';
    response.body = {
      exceptionId: type,
      description: stop.message,
      breakMode: stop.caught ? 'always' : 'unhandled',
      details: { message: stop.message, typeName: type, stackTrace: stop.frames.map((f) => `${f.name} (${f.path}:${f.line}:${f.column})`).join('\n') },
    };
    this.sendResponse(response);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const infos = this.run?.processes() ?? [];
    const names = this.dbg?.names;
    response.body = {
      threads: infos.length
        ? infos.map((i) => new Thread(i.pid, `#${i.pid} ${names?.get(i.pid) ?? i.name ?? (i.pid === 1 ? 'main' : 'process')} (${i.status}${i.waitingOn ? ` on ${i.waitingOn}` : ''})`))
        : [new Thread(1, '#1 main')],
    };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const frames = this.dbg?.frames(args.threadId) ?? [];
    response.body = {
      stackFrames: frames.map((f) => new StackFrame(args.threadId * 10_000 + f.index, f.name, new Source(path.basename(f.path), f.path), f.line, f.column)),
      totalFrames: frames.length,
    };
    this.sendResponse(response);
  }

  private ref(r: VarRef): number {
    const id = this.nextRef++;
    this.refs.set(id, r);
    return id;
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const pid = Math.floor(args.frameId / 10_000);
    const frame = args.frameId % 10_000;
    response.body = {
      scopes: [
        new Scope('Locals', this.ref({ kind: 'locals', pid, frame }), false),
        new Scope('Context', this.ref({ kind: 'context', pid }), true),
        new Scope('Memory', this.ref({ kind: 'memory', pid }), true),
      ],
    };
    this.sendResponse(response);
  }

  private variable(name: string, value: Value): DebugProtocol.Variable {
    return this.dapRow(row(name, value));
  }

  private dapRow(r: Row): DebugProtocol.Variable {
    return { name: r.name, value: r.value, ...(r.type ? { type: r.type } : {}), variablesReference: r.expand ? this.ref(r.expand) : 0 };
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    const r = this.refs.get(args.variablesReference);
    let variables: DebugProtocol.Variable[] = [];
    if (r && this.dbg && this.run) {
      const p = r.kind === 'memory' || r.kind === 'context' ? this.run.processes().find((x) => x.pid === r.pid) : undefined;
      if (r.kind === 'locals') variables = this.dbg.locals(r.pid, r.frame).map((l) => this.variable(l.name, l.value));
      else if (r.kind === 'memory') variables = (p?.memory ?? []).map(([k, v]) => this.variable(k, v));
      else if (r.kind === 'context') {
        if (p) {
          const tier = (name: string, xs: string[]) => {
            const tokens = xs.reduce((a, x) => a + countTokens(x), 0);
            return { name, value: `${xs.length} entries, ${tokens} tokens`, variablesReference: this.ref({ kind: 'value', value: xs }) };
          };
          variables = [tier('P0 system', p.context.P0), tier('P1 working', p.context.P1), tier('P2 episodic', p.context.P2)];
        }
      } else {
        variables = children(r).map((c) => this.dapRow(c));
      }
    }
    response.body = { variables };
    this.sendResponse(response);
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    const frameId = args.frameId ?? (this.dbg?.stoppedPid ?? 1) * 10_000;
    const pid = Math.floor(frameId / 10_000);
    const frames = this.dbg?.frames(pid) ?? [];
    const frame = args.frameId !== undefined ? frameId % 10_000 : frames[0]?.index ?? 0;
    try {
      if (!this.dbg) throw new Error('the program is not running');
      const value = this.dbg.evaluate(args.expression.trim(), pid, frame);
      const v = this.variable(args.expression, value);
      response.body = { result: v.value, variablesReference: v.variablesReference };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3, (e as Error).message);
    }
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    response.body = { allThreadsContinued: true };
    this.sendResponse(response);
    this.dbg?.resume('continue');
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.sendResponse(response);
    this.dbg?.resume('over', args.threadId);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.sendResponse(response);
    this.dbg?.resume('in', args.threadId);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.sendResponse(response);
    this.dbg?.resume('out', args.threadId);
  }

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse, args: DebugProtocol.StepBackArguments): void {
    const dbg = this.dbg;
    if (!dbg) return this.sendErrorResponse(response, 7, 'the program is not running');
    this.sendResponse(response);
    void this.travel(dbg.stepBackTarget(args.threadId), 'step');
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): void {
    const dbg = this.dbg;
    if (!dbg) return this.sendErrorResponse(response, 7, 'the program is not running');
    this.sendResponse(response);
    const target = dbg.reverseContinueTarget();
    void this.travel(target ?? 1, target !== null ? 'breakpoint' : 'entry');
  }

  /**
   * Goes back to step `target`: the run is stopped, and a resume of it re-executes from the start
   * with the journal feeding every recorded result, stopping at that step.
   */
  private async travel(target: number, reason: StopEvent['reason']): Promise<void> {
    const old = this.run;
    const runId = old?.id;
    if (!old || runId === undefined || !this.runOptions || this.traveling) return;
    this.traveling = true;
    this.generation++;
    try {
      old.stop('the debugger went back to an earlier step');
      if (this.dbg) this.printedUpTo = Math.max(this.printedUpTo, this.dbg.tick);
      this.dbg?.detach();
      await this.started;
      const run = await resumeRun({ ...this.runOptions, runId, ...(this.store !== undefined ? { store: this.store } : {}) });
      this.run = run;
      if (!run.bundle) throw new Error(`run ${runId} waits for a decision about an effect whose outcome is unknown`);
      this.attach(run, { stopAtTick: Math.max(1, target), reason });
      this.begin(run);
    } catch (e) {
      this.sendEvent(new OutputEvent(`cannot go back: ${e instanceof Error ? e.message : String(e)}\n`, 'stderr'));
      this.end(1);
    } finally {
      this.traveling = false;
    }
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.sendResponse(response);
    this.dbg?.pause();
  }

  /** Stop: the run ends at its next safe point, even in a loop that performs no effect. */
  private halt(): void {
    this.generation++; // how the stopped run ends is not reported: the session ends here
    this.run?.stop('the debug session was stopped');
    this.dbg?.detach();
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.halt();
    this.sendResponse(response);
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.halt();
    this.sendResponse(response);
    this.end(0);
  }

  /** Sends `initialized` once the client may set breakpoints (after initialize). */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    super.dispatchRequest(request);
    if (request.command === 'initialize') this.sendEvent(new InitializedEvent());
  }
}
