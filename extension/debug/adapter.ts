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
import { compileBundle } from '../../runtime/compile/index.js';
import { countTokens } from '../../runtime/context/index.js';
import { formatDiagnostic, hasErrors } from '../../runtime/diagnostics.js';
import { capabilitiesFromFlags, newUsage, type ApprovalHook, type CapabilityFlags } from '../../runtime/effects/capabilities.js';
import { performTool } from '../../runtime/effects/host.js';
import { EnvVault, RedactingVault, Redactor, type Vault } from '../../runtime/effects/vault.js';
import { loadProgram } from '../../runtime/load.js';
import { createModel } from '../../runtime/cli/model.js';
import { Debugger, debugRender, type StopEvent } from '../../runtime/vm/debug.js';
import { getField } from '../../runtime/vm/ops.js';
import { VM, type Host, type Value } from '../../runtime/vm/index.js';
import type { Durable } from '../../runtime/durable/index.js';
import { attachDurable, loadSuspendedRun, settleRun, type SuspendedRun } from './resume.js';

export interface TurnLaunchArgs extends DebugProtocol.LaunchRequestArguments {
  program: string;
  model?: string;
  stopOnEntry?: boolean;
  /** stop when a process waits on a model reply, an effect or an approval */
  stopOnEffects?: boolean;
  cwd?: string;
  capabilities?: CapabilityFlags;
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
  private vm: VM | undefined;
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

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, args: TurnLaunchArgs): Promise<void> {
    const program = path.resolve(args.program ?? '.');
    let bundle;
    let suspended: SuspendedRun | undefined;
    if (args.resume) {
      try {
        suspended = await loadSuspendedRun(args.store, args.resume);
      } catch (e) {
        this.sendErrorResponse(response, 4, `cannot resume run ${args.resume}: ${(e as Error).message}`);
        return;
      }
      bundle = suspended.bundle;
    } else {
      let loaded;
      try {
        loaded = await loadProgram(program);
      } catch (e) {
        this.sendErrorResponse(response, 1, `cannot load ${program}: ${(e as Error).message}`);
        return;
      }
      if (hasErrors(loaded.diagnostics.map((d) => d.diagnostic))) {
        const text = loaded.diagnostics.map((d) => formatDiagnostic(d.file, d.diagnostic)).join('\n');
        this.sendErrorResponse(response, 2, `${path.basename(program)} does not compile:\n${text}`);
        return;
      }
      bundle = compileBundle(loaded.units, loaded.entryPath);
    }
    const redactor = new Redactor();
    const cwd = args.cwd ?? path.dirname(program);
    const ctx = {
      vault: new RedactingVault(this.options.vault ?? new EnvVault(), redactor),
      capabilities: capabilitiesFromFlags(args.capabilities ?? {}, cwd),
      usage: newUsage(),
      approve: this.options.approve
        ? async (request: Parameters<ApprovalHook>[0]) => {
            if (this.stopOnEffects && this.dbg) await this.dbg.hold(request.pid ?? 1, 'approval', `approval needed: ${request.summary}`);
            return this.options.approve!(request);
          }
        : undefined,
      redactor,
      cwd,
    };
    const model = createModel(args.model ?? 'mock');
    this.stopOnEffects = Boolean(args.stopOnEffects);
    let durable: Durable | undefined;
    const print = (line: string) => this.sendEvent(new OutputEvent(redactor.redact(line) + '\n', 'stdout'));
    const vm = new VM(bundle, {
      // A resumed run does not print again what its replayed part printed.
      output: (line) => (durable ? durable.output({ output: print } as Host, line) : print(line)),
      infer: async (request, io) => {
        if (this.stopOnEffects && this.dbg) await this.dbg.hold(request.pid ?? 1, 'model', `waiting on a model reply (infer ${request.typeName})`);
        return model.infer(request, io);
      },
      tool: async (request) => {
        if (this.stopOnEffects && this.dbg) await this.dbg.hold(this.dbg.stoppedPid ?? 1, 'effect', `waiting on an effect (${request.name})`);
        return performTool(ctx, request);
      },
    });
    this.vm = vm;
    if (suspended) durable = attachDurable(vm, suspended);
    this.dbg = new Debugger(vm, Boolean(args.stopOnEntry));
    this.dbg.onStop = (e) => {
      this.refs.clear();
      const reason = args.stopOnEntry && e.reason === 'pause' && !this.startedOnce ? 'entry' : STOP_REASONS[e.reason];
      this.startedOnce = true;
      const ev = new StoppedEvent(reason, e.pid) as DebugProtocol.StoppedEvent;
      ev.body.description = durable?.replaying ? `${e.description} (replaying the journal: recorded results)` : e.description;
      ev.body.allThreadsStopped = true;
      this.sendEvent(ev);
    };
    for (const [file, lines] of this.pendingBreakpoints) this.dbg.setBreakpoints(file, lines);
    this.sendResponse(response);
    await this.configured;
    const ended = durable
      ? Promise.race([vm.run().then((outcome) => ({ kind: 'ended' as const, outcome })), durable.stopped]).then(async (first) => {
          // as `turn resume` does: a run that ended while the journal stopped it reports the stop
          const stop = first.kind === 'ended' && durable!.stoppedNow ? await durable!.stopped : first;
          if (stop.kind === 'suspended') {
            await durable!.drain();
            settleRun(suspended!, { suspended: true });
            this.sendEvent(new OutputEvent(`suspended: ${suspended!.run.id}\n`, 'console'));
            return null;
          }
          if (stop.kind === 'fatal') throw stop.error;
          const o = stop.outcome;
          settleRun(suspended!, o.ok ? { ok: true, rendered: o.rendered, json: o.json } : { ok: false, message: o.error.message });
          return o;
        })
      : vm.run();
    void ended.then(
      (outcome) => {
        if (outcome && !outcome.ok) {
          const e = outcome.error;
          this.sendEvent(new OutputEvent(`${e.path}:${e.line}:${e.column}: runtime error: ${redactor.redact(e.message)}\n`, 'stderr'));
        }
        this.sendEvent(new ExitedEvent(!outcome || outcome.ok ? 0 : 1));
        this.sendEvent(new TerminatedEvent());
      },
      (err) => {
        this.sendEvent(new OutputEvent(`internal error: ${String(err)}\n`, 'stderr'));
        this.sendEvent(new TerminatedEvent());
      },
    );
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
    const infos = this.vm?.inspectProcesses() ?? [];
    response.body = {
      threads: infos.length
        ? infos.map((i) => new Thread(i.pid, `#${i.pid}${i.pid === 1 ? ' main' : ''} (${i.status}${i.waitingOn ? ` on ${i.waitingOn}` : ''})`))
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
    if (r && this.dbg && this.vm) {
      if (r.kind === 'locals') variables = this.dbg.locals(r.pid, r.frame).map((l) => this.variable(l.name, l.value));
      else if (r.kind === 'memory') variables = [...(this.vm.process(r.pid)?.memory ?? [])].map(([k, v]) => this.variable(k, v));
      else if (r.kind === 'context') {
        const c = this.vm.process(r.pid)?.context;
        if (c) {
          const t = c.tiers();
          const tier = (name: string, xs: string[]) => {
            const tokens = xs.reduce((a, x) => a + countTokens(x), 0);
            return { name, value: `${xs.length} entries, ${tokens} tokens`, variablesReference: this.ref({ kind: 'value', value: xs }) };
          };
          variables = [tier('P0 system', t.system), tier('P1 working', t.working), tier('P2 episodic', t.episodic)];
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

  /** Names, `memory.KEY`, `context.P0|P1|P2`, then `.field` and `[index]` paths over them. */
  private evaluate(expr: string, pid: number, frame: number): Value {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"[^"]*")\])*)$/.exec(expr);
    if (!m || !this.dbg || !this.vm) throw new Error(`cannot evaluate \`${expr}\` (names, .field and [index] paths only)`);
    const p = this.vm.process(pid);
    let value: Value;
    let rest = m[2];
    if (m[1] === 'memory' && p) {
      value = new Map(p.memory);
    } else if (m[1] === 'context' && p) {
      const t = p.context.tiers();
      value = new Map<string, Value>([['P0', t.system], ['P1', t.working], ['P2', t.episodic]]);
    } else {
      const local = this.dbg.locals(pid, frame).find((l) => l.name === m[1]);
      if (!local) throw new Error(`\`${m[1]}\` is not defined here`);
      value = local.value;
    }
    for (const part of rest.match(/\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"[^"]*")\]/g) ?? []) {
      if (part.startsWith('.')) value = value instanceof Map ? (value.get(part.slice(1)) ?? null) : getField(value, part.slice(1));
      else {
        const k = part.slice(1, -1);
        if (Array.isArray(value)) value = value[Number(k)] ?? null;
        else if (value instanceof Map) value = value.get(k.replace(/^"|"$/g, '')) ?? null;
        else throw new Error(`cannot index ${debugRender(value)}`);
      }
    }
    rest = '';
    return value;
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
