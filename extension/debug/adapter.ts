// The Turn debug adapter (DAP, @vscode/debugadapter) over the VM debugger of runtime/vm/debug.ts.
// Each actor is a thread; scopes are Locals, Context (P0/P1/P2) and Memory; stops are
// breakpoints, steps, pauses and — with `stopOnEffects` — a process waiting on a model reply, an
// effect or an approval. No `vscode` import: the extension runs it inline (with the vault);
// dist/debug-adapter.js runs it over stdio (tests, other editors).
import * as path from 'node:path';
import {
  Breakpoint, InitializedEvent, LoggingDebugSession, OutputEvent, Scope, Source, StackFrame, StoppedEvent, TerminatedEvent, ExitedEvent, Thread,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  Debugger, DEFAULT_MODEL, debugRender, countTokens, formatDiagnostic, resumeRun, RunSetupError, startRun,
  type ApprovalHook, type AuthorityOptions, type EffectWait, type Run, type RunOptions, type StopEvent, type Value, type Vault,
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
  /** the store folder of `resume` (default: the CLI's default store, .turn/) */
  store?: string;
}

export interface AdapterOptions {
  vault?: Vault;
  approve?: ApprovalHook;
}

type VarRef = { kind: 'locals'; pid: number; frame: number } | { kind: 'context'; pid: number } | { kind: 'memory'; pid: number } | { kind: 'value'; value: Value };

const STOP_REASONS: Record<StopEvent['reason'], string> = {
  entry: 'entry', breakpoint: 'breakpoint', step: 'step', pause: 'pause',
  model: 'waiting on a model reply', effect: 'waiting on an effect', approval: 'waiting on an approval',
};

export class TurnDebugSession extends LoggingDebugSession {
  private run: Run | undefined;
  private dbg: Debugger | undefined;
  private configured!: Promise<void>;
  private configuredResolve!: () => void;
  private pendingBreakpoints = new Map<string, number[]>();
  private refs = new Map<number, VarRef>();
  private nextRef = 1;
  private stopOnEffects = false;

  constructor(private readonly options: AdapterOptions = {}) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    this.configured = new Promise((r) => (this.configuredResolve = r));
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsEvaluateForHovers: true,
      supportsTerminateRequest: true,
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
      ...(args.maxSteps !== undefined ? { maxSteps: args.maxSteps } : {}),
      ...(args.maxAlloc !== undefined ? { maxAlloc: args.maxAlloc } : {}),
      ...(args.maxTimeMs !== undefined ? { maxTimeMs: args.maxTimeMs } : {}),
      ...(args.toolTimeoutMs !== undefined ? { toolTimeoutMs: args.toolTimeoutMs } : {}),
      ...(args.context !== undefined ? { context: args.context } : {}),
      authority: { ...(args.authority ?? {}), ...(this.options.vault ? { vault: this.options.vault } : {}), approve: this.options.approve ?? 'none' },
      onOutput: (line) => this.sendEvent(new OutputEvent(line + '\n', 'stdout')),
      // with `stopOnEffects`, a process about to wait on the host stops the debugger first
      beforeEffect: (wait: EffectWait) => (this.stopOnEffects && this.dbg ? this.dbg.hold(wait.pid, wait.kind, wait.description) : Promise.resolve()),
    };
    let run: Run;
    try {
      run = args.resume
        ? await resumeRun({ ...options, runId: args.resume, ...(args.store !== undefined ? { store: args.store } : {}) })
        : await startRun({ ...options, file: program });
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
    if (run.bundle) this.attach(run, Boolean(args.stopOnEntry)); // (a resume that waits at once has no program to run)
    this.sendResponse(response);
    await this.configured;
    run.start().then(
      (result) => {
        let code = 0;
        switch (result.kind) {
          case 'failed': {
            const e = result.error;
            this.sendEvent(new OutputEvent(`${e.path}:${e.line}:${e.column}: runtime error: ${e.message}\n`, 'stderr'));
            code = 1;
            break;
          }
          case 'suspended':
            this.sendEvent(new OutputEvent(`suspended: ${result.runId}\n`, 'console'));
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
        this.sendEvent(new ExitedEvent(code));
        this.sendEvent(new TerminatedEvent());
      },
      (err: unknown) => {
        this.sendEvent(new OutputEvent(`internal error: ${String(err)}\n`, 'stderr'));
        this.sendEvent(new TerminatedEvent());
      },
    );
  }

  private attach(run: Run, stopOnEntry: boolean): void {
    const dbg = run.attachDebugger(stopOnEntry);
    this.dbg = dbg;
    dbg.onStop = (e) => {
      this.refs.clear();
      const reason = stopOnEntry && e.reason === 'pause' && !this.startedOnce ? 'entry' : STOP_REASONS[e.reason];
      this.startedOnce = true;
      const ev: DebugProtocol.StoppedEvent = new StoppedEvent(reason, e.pid);
      ev.body.description = run.replaying ? `${e.description} (replaying the journal: recorded results)` : e.description;
      ev.body.allThreadsStopped = true;
      this.sendEvent(ev);
    };
    for (const [file, lines] of this.pendingBreakpoints) dbg.setBreakpoints(file, lines);
  }
  private startedOnce = false;

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    const file = path.resolve(args.source.path ?? '');
    const lines = (args.breakpoints ?? []).map((b) => b.line);
    this.pendingBreakpoints.set(file, lines);
    const bound = this.dbg ? this.dbg.setBreakpoints(file, lines) : lines;
    response.body = {
      breakpoints: bound.map((line, i) => {
        const bp = new Breakpoint(line !== null, line ?? lines[i]) as DebugProtocol.Breakpoint;
        if (line === null) bp.message = 'no code at or after this line';
        return bp;
      }),
    };
    this.sendResponse(response);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const infos = this.run?.processes() ?? [];
    response.body = {
      threads: infos.length
        ? infos.map((i) => new Thread(i.pid, `#${i.pid} ${i.pid === 1 ? 'main' : i.name ?? 'process'} (${i.status}${i.waitingOn ? ` on ${i.waitingOn}` : ''})`))
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
    const nested = Array.isArray(value) || value instanceof Map || (typeof value === 'object' && value !== null && 'fields' in (value as object));
    return { name, value: debugRender(value), variablesReference: nested ? this.ref({ kind: 'value', value }) : 0 };
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
        const v = r.value;
        if (Array.isArray(v)) variables = v.map((x, i) => this.variable(`[${i}]`, x));
        else if (v instanceof Map) variables = [...v].map(([k, x]) => this.variable(String(k), x));
        else if (typeof v === 'object' && v !== null && 'fields' in v) {
          const fields = (v as unknown as { fields: Map<string, Value> | Record<string, Value> }).fields;
          const entries = fields instanceof Map ? [...fields] : Object.entries(fields);
          variables = entries.map(([k, x]) => this.variable(k, x));
        }
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
      const value = this.evaluate(args.expression.trim(), pid, frame);
      const v = this.variable(args.expression, value);
      response.body = { result: v.value, variablesReference: v.variablesReference };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3, (e as Error).message);
    }
  }

  private evaluate(expr: string, pid: number, frame: number): Value {
    if (!this.dbg) throw new Error('the program is not running');
    return this.dbg.evaluate(expr, pid, frame);
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

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.sendResponse(response);
    this.dbg?.pause();
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.dbg?.detach();
    this.sendResponse(response);
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.dbg?.detach();
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  /** Sends `initialized` once the client may set breakpoints (after initialize). */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    super.dispatchRequest(request);
    if (request.command === 'initialize') this.sendEvent(new InitializedEvent());
  }
}
