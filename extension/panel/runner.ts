// Runs a Turn program in the extension host through the runtime library (not the CLI) and keeps a
// RunView of it up to date from the VM's event stream and `inspectProcesses()`: the actor tree,
// each actor's context tiers, memory and mailbox, every `infer` exchange, and the timeline.
// No `vscode` import: the panel (panel.ts) passes the vault, the approval hook and a publish
// callback, and test/extension/ drives this file directly.
import { compileBundle } from '../../runtime/compile/index.js';
import { countTokens } from '../../runtime/context/index.js';
import { hasErrors, formatDiagnostic } from '../../runtime/diagnostics.js';
import { capabilitiesFromFlags, newUsage, type ApprovalHook, type CapabilityFlags } from '../../runtime/effects/capabilities.js';
import { budgetedModel, performTool } from '../../runtime/effects/host.js';
import type { EffectToolContext } from '../../runtime/effects/tools.js';
import { RedactingVault, Redactor, type Vault } from '../../runtime/effects/vault.js';
import type { RunEvent } from '../../runtime/events/index.js';
import type { InferIO, InferRequest } from '../../runtime/infer/types.js';
import { loadProgram } from '../../runtime/load.js';
import { createModel } from '../../runtime/cli/model.js';
import { renderValue, VM, type RunOutcome } from '../../runtime/vm/index.js';
import type { Process } from '../../runtime/vm/process.js';
import type { ActorView, ContextView, InferView, RunView, SiteView, TimelineItem } from '../protocol/panel.js';
import { emptyRun } from '../protocol/panel.js';

export interface RunnerOptions {
  file: string;
  model: string;
  vault: Vault;
  approve?: ApprovalHook;
  capabilities?: CapabilityFlags;
  cwd: string;
  /** called with the latest view, at most every `throttleMs` while running, and once at the end */
  publish(view: RunView): void;
  throttleMs?: number;
  runId?: number;
  maxSteps?: number;
}

const MAX_TEXT = 4_000;
const clip = (s: string): string => (s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + ` … (${s.length - MAX_TEXT} more characters)` : s);

export class Runner {
  readonly view: RunView;
  private vm: VM | undefined;
  private readonly redactor = new Redactor();
  private readonly infers = new Map<string, InferView>();
  private readonly timeline: TimelineItem[] = [];
  private readonly tally = new Map<number, { demoted: { entries: number; tokens: number }; dropped: { entries: number; tokens: number } }>();
  /** per supervisor: children it spawned again after one of its children failed */
  private readonly restarts = new Map<number, number>();
  private readonly parentOf = new Map<number, number>();
  private readonly failedChildren = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private done: Promise<RunView> | undefined;

  constructor(private readonly options: RunnerOptions) {
    this.view = emptyRun(options.runId ?? 1, options.file, options.model);
  }

  /** Runs the program to its end (or until `stop`). Resolves with the final view. */
  start(): Promise<RunView> {
    this.done ??= this.run();
    return this.done;
  }

  /** Stops the run: every later effect is refused, and the view says `stopped`. */
  stop(): void {
    if (this.view.status !== 'running') return;
    this.stopped = true;
    this.view.status = 'stopped';
    this.flush();
  }

  private async run(): Promise<RunView> {
    const o = this.options;
    this.view.status = 'running';
    this.publishSoon();
    try {
      const loaded = await loadProgram(o.file);
      const errors = loaded.diagnostics.filter((d) => d.diagnostic.severity === 'error');
      if (hasErrors(loaded.diagnostics.map((d) => d.diagnostic))) {
        const first = errors[0];
        this.view.status = 'failed';
        this.view.error = { message: errors.map((d) => formatDiagnostic(d.file, d.diagnostic)).join('\n'), site: first ? { path: first.file.path, line: first.file.position(first.diagnostic.span?.start ?? 0).line } : null };
        return this.finish();
      }
      const bundle = compileBundle(loaded.units, loaded.entryPath);
      const model = createModel(o.model);
      const ctx: EffectToolContext = {
        vault: new RedactingVault(o.vault, this.redactor),
        capabilities: capabilitiesFromFlags(o.capabilities ?? {}, o.cwd),
        usage: newUsage(),
        approve: o.approve,
        redactor: this.redactor,
        cwd: o.cwd,
      };
      const refuseWhenStopped = <T>(f: () => Promise<T>): Promise<T> => (this.stopped ? Promise.reject(new Error('the run was stopped')) : f());
      const vm = new VM(bundle, {
        output: (line) => {
          this.view.output.push(clip(this.redactor.redact(line)));
          this.publishSoon();
        },
        infer: budgetedModel(ctx.capabilities, ctx.usage!, (request: InferRequest, io?: InferIO) => refuseWhenStopped(() => model.infer(request, io))),
        tool: (request) => refuseWhenStopped(() => performTool(ctx, request)),
        event: (e) => this.onEvent(this.redactor.redactDeep(e) as RunEvent),
      }, { maxSteps: o.maxSteps });
      this.vm = vm;
      const outcome = await vm.run();
      this.settle(outcome);
    } catch (e) {
      this.view.status = 'failed';
      this.view.error = { message: this.redactor.redact(e instanceof Error ? e.message : String(e)), site: null };
    }
    return this.finish();
  }

  private settle(outcome: RunOutcome): void {
    if (this.stopped) return;
    if (outcome.ok) {
      this.view.status = 'done';
      this.view.result = clip(this.redactor.redact(outcome.rendered));
    } else {
      this.view.status = 'failed';
      this.view.error = { message: this.redactor.redact(outcome.error.message), site: { path: outcome.error.path, line: outcome.error.line } };
    }
  }

  private finish(): RunView {
    for (const t of this.timeline) if (t.state === 'pending') t.state = 'unknown';
    for (const i of this.infers.values()) if (i.state === 'pending') i.state = 'failed';
    this.flush();
    return this.view;
  }

  // ---- events

  private siteOf(pid: number | null): SiteView | null {
    const p = pid !== null ? this.vm?.process(pid) : undefined;
    if (!p || !this.vm || p.frames.length === 0) return null;
    const s = this.vm.site(p);
    return { path: s.path, line: s.line };
  }

  private onEvent(e: RunEvent): void {
    const pid = typeof e.pid === 'number' ? e.pid : null;
    let summary = e.kind;
    let state: TimelineItem['state'] = 'done';
    switch (e.kind) {
      case 'infer.request': {
        const id = String(e.id);
        let view = this.infers.get(id);
        if (!view) {
          view = { id, pid: pid ?? 0, type: String(e.type ?? ''), site: this.siteOf(pid), attempts: [], state: 'pending' };
          this.infers.set(id, view);
        }
        const prompt = e.prompt as { P0: string[]; P2: string[]; P1: string[]; task: string };
        view.attempts.push({
          attempt: Number(e.attempt ?? view.attempts.length + 1),
          prompt: { P0: prompt.P0.map(clip), P2: prompt.P2.map(clip), P1: prompt.P1.map(clip), task: clip(prompt.task) },
          feedback: ((e.feedback as string[]) ?? []).map(clip),
          schema: e.schema ?? null,
          raw: null,
          repairs: [],
          errors: [],
          valid: null,
          confidence: null,
        });
        summary = `infer ${view.type} (attempt ${view.attempts.length})`;
        state = 'pending';
        break;
      }
      case 'infer.reply':
      case 'infer.error': {
        const view = this.infers.get(String(e.id));
        const a = view?.attempts[view.attempts.length - 1];
        if (view && a) {
          if (e.kind === 'infer.reply') {
            a.raw = typeof e.raw === 'string' ? clip(e.raw) : e.raw === undefined || e.raw === null ? null : clip(JSON.stringify(e.raw));
            a.repairs = ((e.repairs as unknown[]) ?? []).map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
            a.errors = ((e.errors as unknown[]) ?? []).map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
            a.valid = Boolean(e.valid);
            a.confidence = typeof e.confidence === 'number' ? e.confidence : null;
            view.state = a.valid ? 'ok' : 'pending';
          } else {
            a.errors.push(String(e.error ?? 'error'));
            a.valid = false;
            view.state = 'failed';
          }
        }
        this.resolvePending((t) => t.kind === 'infer.request' && t.pid === pid);
        summary = e.kind === 'infer.reply' ? `reply${e.valid ? '' : ' (invalid)'}${typeof e.confidence === 'number' ? `, confidence ${e.confidence}` : ''}` : `infer failed: ${String(e.error)}`;
        break;
      }
      case 'infer.retry':
        summary = `retry (attempt ${String(e.attempt)})`;
        break;
      case 'tool.request':
        summary = `effect ${String(e.tool)}`;
        state = 'pending';
        break;
      case 'tool.reply':
        this.resolvePending((t) => t.kind === 'tool.request' && t.pid === pid);
        summary = `effect ${String(e.tool)} ${e.ok ? 'done' : 'failed'}`;
        break;
      case 'process.spawn': {
        const parent = Number(e.parent);
        if (pid !== null) this.parentOf.set(pid, parent);
        // a spawn after one of this parent's children failed: the parent (a supervisor) restarted it
        const failed = this.failedChildren.get(parent) ?? 0;
        if (failed > 0) {
          this.failedChildren.set(parent, failed - 1);
          this.restarts.set(parent, (this.restarts.get(parent) ?? 0) + 1);
        }
        summary = `spawn #${pid} (parent #${parent})${failed > 0 ? ' — a restart' : ''}`;
        break;
      }
      case 'process.exit': {
        const parent = pid !== null ? this.parentOf.get(pid) : undefined;
        if (e.status === 'failed' && parent !== undefined) this.failedChildren.set(parent, (this.failedChildren.get(parent) ?? 0) + 1);
        summary = `#${pid} ${String(e.status)}`;
        break;
      }
      case 'context.demote':
      case 'context.drop': {
        if (pid !== null) {
          const t = this.tally.get(pid) ?? { demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } };
          const which = e.kind === 'context.demote' ? t.demoted : t.dropped;
          which.entries += Number(e.entries ?? 0);
          which.tokens += Number(e.tokens ?? 0);
          this.tally.set(pid, t);
        }
        summary = `${e.kind === 'context.demote' ? 'demoted P1→P2' : 'dropped from P2'}: ${String(e.entries)} entries, ${String(e.tokens)} tokens`;
        break;
      }
    }
    this.timeline.push({ seq: e.seq, ms: e.ms, kind: e.kind, pid, summary: clip(summary), state, site: this.siteOf(pid) });
    this.publishSoon();
  }

  private resolvePending(match: (t: TimelineItem) => boolean): void {
    for (let i = this.timeline.length - 1; i >= 0; i--) {
      const t = this.timeline[i];
      if (t.state === 'pending' && match(t)) {
        t.state = 'done';
        return;
      }
    }
  }

  // ---- views

  private contextOf(p: Process): ContextView {
    const tiers = p.context.tiers();
    const entries = (xs: string[]) => xs.map((text) => ({ text: clip(text), tokens: countTokens(text) }));
    const P0 = entries(tiers.system);
    const P1 = entries(tiers.working);
    const P2 = entries(tiers.episodic);
    const sum = (xs: { tokens: number }[]) => xs.reduce((a, x) => a + x.tokens, 0);
    const t = this.tally.get(p.id) ?? { demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } };
    return {
      P0, P1, P2,
      tokens: { P0: sum(P0), P1: sum(P1), P2: sum(P2) },
      limits: { ...p.context.limits },
      demoted: { ...t.demoted },
      dropped: { ...t.dropped },
    };
  }

  private actors(): ActorView[] {
    const vm = this.vm;
    if (!vm) return [];
    const r = (v: unknown) => clip(this.redactor.redact(renderValue(v as never)));
    return vm.inspectProcesses().map((info) => {
      const p = vm.process(info.pid)!;
      return {
        pid: info.pid,
        parent: info.parent,
        status: info.status,
        waitingOn: info.waitingOn,
        linked: info.linked,
        detached: info.detached,
        restarts: this.restarts.get(info.pid) ?? 0,
        site: p.frames.length > 0 ? this.siteOf(info.pid) : null,
        context: this.contextOf(p),
        memory: [...p.memory].map(([key, value]) => ({ key, value: r(value) })),
        mailbox: p.mailbox.map(r),
        result: info.status === 'done' ? r(p.result) : null,
        error: info.status === 'failed' && p.failure ? r(p.failure.value) : null,
      };
    });
  }

  private snapshot(): RunView {
    this.view.actors = this.actors();
    this.view.infers = [...this.infers.values()];
    this.view.timeline = this.timeline.slice(-2_000);
    return this.view;
  }

  private publishSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.options.publish(this.snapshot());
    }, this.options.throttleMs ?? 100);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.options.publish(this.snapshot());
  }
}
