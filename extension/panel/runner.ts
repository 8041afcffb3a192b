// Runs a Turn program in the extension host through the run API (runtime/run) and keeps a
// RunView of it up to date from the run's typed event stream and its processes: the actor tree,
// each actor's context tiers, memory and mailbox, every `infer` exchange, and the timeline.
// No `vscode` import: the panel (panel.ts) passes the vault, the approval hook and a publish
// callback, and test/extension/ drives this file directly.
//
// A durable run (`options.store`, the workspace's `.turn/` when `turn.durableRuns` is on) uses the
// editor's shared handle on that store (extension/runs/shared-store.ts), so the Runs view can list
// it while it runs, and tells the Runs view when it starts and ends. With a `request` from the Runs
// view (extension/runs/panel-requests.ts, through RunPanel.openStored), the Runner resumes that
// stored run, or shows it as stored, instead of starting the file afresh.
import {
  blocksOfStore, countTokens, DEFAULT_MODEL, formatDiagnostic, inferOptionsText, isRealModel, renderValue, resumeRun, RunSetupError, startRun, summaryLines, tokenSummary,
  type PriceTable, type ProcessInfo, type ProcessView, type Run, type RunEvent, type RunOptions, type RunResult, type RunStore,
} from '../../runtime/index.js';
import type { ActorView, CallPhasesView, ContextView, InferAttemptView, InferView, RunView, SiteView, TimelineItem } from '../protocol/panel.js';
import { emptyRun, MAX_MESSAGE_PAIRS } from '../protocol/panel.js';
import { WaitTracker } from './waits.js';
import type { PanelRequest } from '../runs/panel-requests.js';
import { sharedStores } from '../runs/shared-store.js';
import { journalBeforeResume, journalInfers, journalTimeline, storedRunView } from '../runs/stored-view.js';
import { partialReplyValue } from './partial-json.js';

export interface RunnerOptions {
  file: string;
  /** how to run it: the settings' options (extension/settings.ts) with the editor's vault and approval prompt */
  options: RunOptions;
  /** called with the latest view, at most every `throttleMs` while running, and once at the end */
  publish(view: RunView): void;
  throttleMs?: number;
  runId?: number;
  /** a stored run to resume or show instead of starting `file` afresh (the Runs view's actions) */
  request?: PanelRequest;
  /** the price table of `turn.pricesFile`, which turns the run's token summary into money */
  prices?: PriceTable;
  /** sees every event of the run as it comes (the panel's bench measures the run's own event bytes) */
  tap?: (e: RunEvent) => void;
  /** told how the run ended, with the run (an agent mode call takes its value and confidence: extension/lm/) */
  onSettled?: (result: RunResult, run: Run) => void;
}

const MAX_TEXT = 4_000;
const clip = (s: string): string => (s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + ` … (${s.length - MAX_TEXT} more characters)` : s);
/** how much of a streaming reply the panel shows (its end) */
const MAX_STREAMED = 4_000;
/** how much of a streaming reply is read for its partial value (past it, the value shown stays as it was) */
const MAX_PARTIAL_SOURCE = 1_000_000;
/**
 * Actors read again at each publish besides the ones that changed (an event of theirs, a new status
 * or mailbox count), in turn: a process that changes its memory or context without an event (a
 * computation between two effects) is seen within (actors ÷ this) publishes, and the work of a
 * publish stays proportional to the change, not to the number of actors (issue 44).
 */
const ACTORS_REREAD_PER_PUBLISH = 64;
/**
 * Rows (re)built in one publish at most: 1,000 workers spawned at once appear over a few publishes
 * (a tenth of a second apart) instead of one publish holding the thread for all of them.
 */
const MAX_ROWS_PER_PUBLISH = 200;

/**
 * The wait tracker looks at every process's status; with many processes it looks at one event in
 * (processes ÷ this), so its work per event stays about this many process reads (at 1,000 workers,
 * every 15th event: a wait is placed within 15 events of where it began or ended).
 */
const WAIT_LOOK_PROCESSES = 64;
/** context entries whose token count is remembered (1,000 workers share their system prompt) */
const MAX_COUNTED = 10_000;

/** What of a process's status changes its row without an event of its own (woken, a message received, cancelled). */
const statusSig = (i: ProcessInfo): string => `${i.status}|${i.waitingOn}|${i.mailbox}|${i.cancel}|${i.linked}|${i.detached}|${i.scopes}|${i.monitors.length}|${i.parent}`;

/** A reply's phases as the transport measured them (reply.meta.phases), if they are there and are numbers. */
function callPhases(v: unknown): CallPhasesView | null {
  if (typeof v !== 'object' || v === null) return null;
  const p = v as Record<string, unknown>;
  const at = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : null);
  const queuedMs = at(p.queuedMs);
  const sentMs = at(p.sentMs);
  if (queuedMs === null || sentMs === null) return null;
  return { queuedMs, sentMs, firstByteMs: at(p.firstByteMs), lastByteMs: at(p.lastByteMs) };
}

export class Runner {
  readonly view: RunView;
  private run: Run | undefined;
  private readonly infers = new Map<string, InferView>();
  private readonly timeline: TimelineItem[] = [];
  /** a resumed run's events come after its journal's earlier steps: their time from the journal's first */
  private offsetMs = 0;
  /** per infer attempt, the timeline item that follows its streamed reply */
  private readonly streaming = new Map<string, TimelineItem>();
  /** per streaming attempt, its whole text so far, and the attempts whose partial value is to be read again at the next publish */
  private readonly streamedText = new WeakMap<InferAttemptView, string>();
  private readonly partialDue = new Set<InferAttemptView>();
  private readonly tally = new Map<number, { demoted: { entries: number; tokens: number }; dropped: { entries: number; tokens: number } }>();
  /** per supervisor: children it spawned again after one of its children failed */
  private readonly restarts = new Map<number, number>();
  private readonly parentOf = new Map<number, number>();
  /** the function each actor runs, noted while it has frames (a finished process has none) */
  private readonly names = new Map<number, string>();
  /** waits on messages, gathers, joins and sleeps, for the timeline (the event stream records only effects) */
  private readonly waits = new WaitTracker();
  private readonly failedChildren = new Map<number, number>();
  /** who sent to whom, one row per (from, to) pair (`process.send` events), at most MAX_MESSAGE_PAIRS */
  private readonly messages = new Map<string, { from: number; to: number; count: number }>();
  /** each actor's row as last built (a new object when rebuilt: the delta producer skips a row it has sent), its status signature, and the pids changed since */
  private readonly actorRows = new Map<number, ActorView>();
  private readonly actorSigs = new Map<number, string>();
  private readonly actorsDue = new Set<number>();
  /** where the next publish goes on re-reading unchanged actors (ACTORS_REREAD_PER_PUBLISH) */
  private rereadFrom = 0;
  /** events since the wait tracker last looked, and how many processes it saw then */
  private eventsSinceWaitLook = 0;
  private processCount = 1;
  private readonly counted = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private done: Promise<RunView> | undefined;

  constructor(private readonly options: RunnerOptions) {
    this.view = emptyRun(options.runId ?? 1, options.file, options.options.model ?? DEFAULT_MODEL);
  }

  /** Runs the program to its end (or until `stop`). Resolves with the final view. */
  start(): Promise<RunView> {
    this.done ??= this.execute();
    return this.done;
  }

  /** Stops the run: every later effect is refused, the program ends at its next safe point, and the view says `stopped`. */
  stop(): void {
    if (this.view.status !== 'running') return;
    this.stopped = true;
    this.run?.stop('the run was stopped');
    this.view.status = 'stopped';
    this.flush();
  }

  private async execute(): Promise<RunView> {
    const request = this.options.request;
    const storeDir = request?.storeDir ?? (typeof this.options.options.store === 'string' ? this.options.options.store : undefined);
    let held: { store: RunStore; release: () => void } | undefined;
    try {
      if (storeDir !== undefined) held = sharedStores.acquire(storeDir);
      if (request?.kind === 'show') {
        // published as built: there is no live run whose processes or events would replace it
        Object.assign(this.view, storedRunView(held!.store, request.runId, storeDir!, this.view.runId));
        this.options.publish(this.view);
        return this.view;
      }
      // shown at once (Stop enabled): the program's compile and the store come after
      this.view.status = 'running';
      this.flush();
      const watch = {
        onOutput: (line: string) => {
          this.view.output.push(clip(line));
          this.publishSoon();
        },
        onEvent: (e: RunEvent) => this.onEvent(e),
      };
      if (request) {
        // the part before the resume that the resume does not run again (up to its snapshot) emits
        // no events, so it comes from the journal, and the resumed part's events follow it on the journal's clock
        const journal = journalBeforeResume(held!.store, request.runId);
        for (const t of journalTimeline(journal)) this.timeline.push(t);
        // and its model calls (a resumed run lists the calls made before the resume, as a live one does)
        for (const i of journalInfers(journal, blocksOfStore(held!.store, request.runId))) this.infers.set(i.id, i);
        if (journal.length > 0) this.offsetMs = Math.max(0, Date.now() - journal[0].createdAt);
      }
      this.run = request ? await this.resume(request, held!.store, watch) : await startRun({ ...this.options.options, ...(held ? { store: held.store } : {}), file: this.options.file, ...watch });
      if (this.run.id !== undefined && storeDir !== undefined) {
        this.view.stored = { runId: this.run.id, storeDir };
        sharedStores.live.add(this.run.id);
        sharedStores.changed(storeDir);
      }
      if (this.stopped) this.run.stop('the run was stopped');
      const result = await this.run.start();
      this.settle(result);
      this.options.onSettled?.(result, this.run);
    } catch (e) {
      this.view.status = 'failed';
      if (e instanceof RunSetupError && e.diagnostics.length > 0) {
        const errors = e.diagnostics.filter((d) => d.diagnostic.severity === 'error');
        const first = errors[0];
        this.view.error = {
          message: errors.map((d) => formatDiagnostic(d.file, d.diagnostic)).join('\n'),
          site: first ? { path: first.file.path, line: first.file.position(first.diagnostic.span?.start ?? 0).line } : null,
        };
      } else this.view.error = { message: e instanceof Error ? e.message : String(e), site: null };
    } finally {
      if (this.run?.id !== undefined) sharedStores.live.delete(this.run.id);
      held?.release();
      if (storeDir !== undefined) sharedStores.changed(storeDir);
    }
    return this.finish();
  }

  /** Resumes a stored run with the options it recorded; the editor adds its vault and approval prompt. */
  private resume(request: Extract<PanelRequest, { kind: 'resume' }>, store: RunStore, watch: Pick<RunOptions, 'onOutput' | 'onEvent'>): Promise<Run> {
    const { vault, approve } = this.options.options.authority ?? {};
    return resumeRun({
      runId: request.runId,
      store,
      ...(request.migrate ? { migrate: true } : {}),
      authority: { ...(vault ? { vault } : {}), ...(approve ? { approve } : {}) },
      // a resumed run's new model calls hand their images to the panel too (thumbnails)
      ...(this.options.options.onMedia ? { onMedia: this.options.options.onMedia } : {}),
      ...watch,
    });
  }

  private settle(result: RunResult): void {
    const real = this.run ? this.run.tokens().filter((t) => isRealModel(t.model) && t.calls + t.failed > 0) : [];
    if (real.length > 0) {
      const summary = tokenSummary(real, this.options.prices);
      this.view.tokens = { ...summary, lines: summaryLines(summary) };
    }
    if (this.stopped || result.kind === 'stopped') {
      this.view.status = 'stopped';
      return;
    }
    switch (result.kind) {
      case 'done':
        this.view.status = 'done';
        this.view.result = clip(this.run!.redact(result.rendered));
        return;
      case 'failed':
        this.view.status = 'failed';
        this.view.error = { message: result.error.message, site: { path: result.error.path, line: result.error.line } };
        return;
      case 'suspended':
        this.view.status = 'suspended';
        this.view.result = `suspended: run ${result.runId} (resume it from the Runs view)`;
        return;
      case 'waiting':
        this.view.status = 'waiting';
        if (result.refused !== undefined) {
          // refused before anything was sent (a secret not set, a grant): no decision to make; the
          // reason as the runtime gave it (the panel offers Add Credential for a missing secret) at the call's line
          const step = result.unknown[0];
          const at = step ? [...this.timeline].reverse().find((t) => t.site !== null && t.pid === step.pid && (t.kind === 'tool.request' || t.kind === 'infer.request')) : undefined;
          this.view.error = { message: `${result.refused} — nothing was sent (step ${step?.seq ?? '?'}); once it is there, resume the run from the Runs view`, site: at?.site ?? null };
          return;
        }
        this.view.error = { message: `waiting for a decision about an unknown outcome (steps ${result.unknown.map((e) => e.seq).join(', ')}): settle it in the Runs view`, site: null };
        return;
      case 'aborted':
        this.view.status = 'failed';
        this.view.error = { message: result.message, site: null };
    }
  }

  private finish(): RunView {
    const last = this.timeline[this.timeline.length - 1];
    if (last) this.timeline.push(...this.waits.observe(last.seq, last.ms, this.run?.statuses() ?? []));
    for (const t of this.timeline) if (t.state === 'pending') t.state = 'unknown';
    for (const i of this.infers.values()) if (i.state === 'pending') i.state = 'failed';
    this.flush(true);
    return this.view;
  }

  // ---- events

  private siteOf(pid: number | null): SiteView | null {
    const s = pid !== null ? this.run?.site(pid) : null;
    return s ? { path: s.path, line: s.line } : null;
  }

  /**
   * A streamed chunk of a model's reply (`{kind: 'infer.delta', pid, id, delta, tokens, elapsedMs}`,
   * from providers that stream): the attempt's partial text grows, and one timeline item per
   * attempt moves with it, so the pending model bar grows and says how many tokens came.
   */
  private onDelta(e: { seq?: number; ms?: number; id: string; pid: number; delta: string; tokens: number; elapsedMs: number }): void {
    const view = this.infers.get(e.id);
    const a = view?.attempts[view.attempts.length - 1];
    if (!view || !a) return;
    const text = (a.streamed?.text ?? '') + e.delta;
    a.streamed = { text: text.length > MAX_STREAMED ? `…${text.slice(-MAX_STREAMED)}` : text, tokens: e.tokens, elapsedMs: e.elapsedMs, partial: a.streamed?.partial ?? null };
    const whole = (this.streamedText.get(a) ?? '') + e.delta;
    if (whole.length <= MAX_PARTIAL_SOURCE) {
      this.streamedText.set(a, whole);
      this.partialDue.add(a);
    }
    const ms = (e.ms ?? this.timeline[this.timeline.length - 1]?.ms ?? 0) + (e.ms === undefined ? 0 : this.offsetMs);
    const key = `${e.id}#${a.attempt}`;
    let item = this.streaming.get(key);
    if (!item) {
      item = { seq: e.seq ?? this.timeline.length, ms, kind: 'infer.delta', pid: e.pid, summary: '', state: 'done', site: this.siteOf(e.pid) };
      this.streaming.set(key, item);
      this.timeline.push(item);
    }
    item.ms = Math.max(item.ms, ms);
    item.summary = `streaming: ${e.tokens} tokens in ${(e.elapsedMs / 1000).toFixed(1)} s`;
    this.publishSoon();
  }

  private onEvent(ev: RunEvent): void {
    this.options.tap?.(ev);
    const loose = ev as unknown as { kind: string; id?: unknown; pid?: unknown; delta?: unknown; tokens?: unknown; elapsedMs?: unknown };
    if (loose.kind === 'infer.delta') {
      // the event of the streaming providers (runtime/infer's InferDelta, with the driver's id and pid)
      if (typeof loose.id === 'string' && typeof loose.pid === 'number' && typeof loose.delta === 'string') {
        this.onDelta({ ...(loose as { seq?: number; ms?: number }), id: loose.id, pid: loose.pid, delta: loose.delta, tokens: Number(loose.tokens) || 0, elapsedMs: Number(loose.elapsedMs) || 0 });
      }
      return;
    }
    if (ev.kind === 'process.send') {
      // counted per pair, not one timeline item per message (a 1,000-worker run sends thousands)
      this.countMessage(ev.pid, ev.to);
      return;
    }
    const e = ev;
    const pid = 'pid' in e ? e.pid : null;
    if (pid !== null) {
      this.actorsDue.add(pid);
      if (!this.names.has(pid)) this.nameOf(pid, this.run?.processName(pid) ?? null);
    }
    let summary: string = e.kind;
    let state: TimelineItem['state'] = 'done';
    switch (e.kind) {
      case 'infer.request': {
        let view = this.infers.get(e.id);
        if (!view) {
          view = { id: e.id, pid: e.pid, type: e.type, site: this.siteOf(e.pid), attempts: [], state: 'pending' };
          this.infers.set(e.id, view);
        }
        const { prompt } = e;
        view.attempts.push({
          attempt: e.attempt,
          prompt: { P0: prompt.P0.map(clip), P2: prompt.P2.map(clip), P1: prompt.P1.map(clip), task: clip(prompt.task) },
          feedback: e.feedback.map(clip),
          schema: e.schema ?? null,
          raw: null,
          repairs: [],
          errors: [],
          valid: null,
          confidence: null,
        });
        const opts = inferOptionsText(e.options);
        summary = `infer ${view.type}${opts ? ` ${opts}` : ''} (attempt ${view.attempts.length})`;
        state = 'pending';
        break;
      }
      case 'infer.reply':
      case 'infer.error': {
        const view = this.infers.get(e.id);
        const a = view?.attempts[view.attempts.length - 1];
        if (view && a) {
          if (e.kind === 'infer.reply') {
            a.raw = clip(e.raw);
            a.streamed = null;
            this.partialDue.delete(a);
            this.streamedText.delete(a);
            a.repairs = e.repairs.slice();
            a.errors = e.errors.map((i) => `${i.path || '/'}: ${i.message}`);
            a.valid = e.valid;
            a.confidence = e.confidence?.value ?? null;
            const c = e.confidence;
            a.calibration = c?.calibration !== undefined && c.raw !== undefined ? { source: c.source, raw: c.raw, map: c.calibration } : null;
            view.state = a.valid ? 'ok' : 'pending';
          } else {
            a.errors.push(e.error);
            a.valid = false;
            view.state = 'failed';
          }
        }
        this.resolvePending((t) => t.kind === 'infer.request' && t.pid === pid);
        summary = e.kind === 'infer.reply' ? `reply${e.valid ? '' : ' (invalid)'}${e.confidence ? `, confidence ${e.confidence.value}` : ''}` : `infer failed: ${e.error}`;
        break;
      }
      case 'infer.retry':
        summary = `retry (attempt ${e.attempt})`;
        break;
      case 'tool.request':
        summary = `effect ${e.tool}`;
        state = 'pending';
        break;
      case 'tool.reply':
        this.resolvePending((t) => t.kind === 'tool.request' && t.pid === pid);
        summary = `effect ${e.tool} ${e.ok ? 'done' : 'failed'}`;
        break;
      case 'process.spawn': {
        this.parentOf.set(e.pid, e.parent);
        this.actorsDue.add(e.parent);
        // a spawn after one of this parent's children failed: the parent (a supervisor) restarted it
        const failed = this.failedChildren.get(e.parent) ?? 0;
        if (failed > 0) {
          this.failedChildren.set(e.parent, failed - 1);
          this.restarts.set(e.parent, (this.restarts.get(e.parent) ?? 0) + 1);
        }
        summary = `spawn #${e.pid} (parent #${e.parent})${failed > 0 ? ' — a restart' : ''}`;
        break;
      }
      case 'process.exit': {
        const parent = this.parentOf.get(e.pid);
        if (parent !== undefined) this.actorsDue.add(parent);
        if (e.status === 'failed' && parent !== undefined) this.failedChildren.set(parent, (this.failedChildren.get(parent) ?? 0) + 1);
        summary = `#${e.pid} ${e.status}`;
        break;
      }
      case 'context.demote':
      case 'context.drop': {
        const t = this.tally.get(e.pid) ?? { demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } };
        const which = e.kind === 'context.demote' ? t.demoted : t.dropped;
        which.entries += e.entries;
        which.tokens += e.tokens;
        this.tally.set(e.pid, t);
        summary = `${e.kind === 'context.demote' ? 'demoted P1→P2' : 'dropped from P2'}: ${e.entries} entries, ${e.tokens} tokens`;
        break;
      }
      case 'http.retry':
        summary = `HTTP retry ${e.attempt} (${e.reason})`;
        break;
    }
    const ms = e.ms + this.offsetMs;
    if (++this.eventsSinceWaitLook >= Math.max(1, Math.floor(this.processCount / WAIT_LOOK_PROCESSES))) this.lookAtWaits(e.seq, ms);
    const phases = e.kind === 'infer.reply' ? callPhases(e.meta?.phases) : null;
    this.timeline.push({ seq: e.seq, ms, kind: e.kind, pid, summary: clip(summary), state, site: this.siteOf(pid), ...(phases ? { phases } : {}) });
    this.publishSoon();
  }

  private lookAtWaits(seq: number, ms: number): void {
    this.eventsSinceWaitLook = 0;
    const statuses = this.run?.statuses() ?? [];
    this.processCount = statuses.length;
    this.timeline.push(...this.waits.observe(seq, ms, statuses, (p) => this.siteOf(p)));
  }

  /** A context entry's tokens, remembered (bounded) for the texts that recur across actors and publishes. */
  private tokensOf(text: string): number {
    let n = this.counted.get(text);
    if (n === undefined) {
      n = countTokens(text);
      if (this.counted.size >= MAX_COUNTED) this.counted.clear();
      this.counted.set(text, n);
    }
    return n;
  }

  private countMessage(from: number, to: number): void {
    const key = `${from}>${to}`;
    const row = this.messages.get(key);
    if (row) row.count++;
    else if (this.messages.size < MAX_MESSAGE_PAIRS) this.messages.set(key, { from, to, count: 1 });
    else return;
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

  private contextOf(p: ProcessView): ContextView {
    const entries = (xs: string[]) => xs.map((text) => ({ text: clip(text), tokens: this.tokensOf(text) }));
    const P0 = entries(p.context.P0);
    const P1 = entries(p.context.P1);
    const P2 = entries(p.context.P2);
    const sum = (xs: { tokens: number }[]) => xs.reduce((a, x) => a + x.tokens, 0);
    const t = this.tally.get(p.pid) ?? { demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } };
    return {
      P0, P1, P2,
      tokens: { P0: sum(P0), P1: sum(P1), P2: sum(P2) },
      limits: { ...p.context.limits },
      demoted: { ...t.demoted },
      dropped: { ...t.dropped },
    };
  }

  private actorRow(p: ProcessView): ActorView {
    const run = this.run!;
    const r = (v: unknown) => clip(run.redact(renderValue(v as never)));
    return {
      pid: p.pid,
      parent: p.parent,
      name: this.nameOf(p.pid, p.name),
      ...(p.after.length > 0 ? { after: p.after.slice() } : {}),
      status: p.status,
      waitingOn: p.waitingOn,
      linked: p.linked,
      detached: p.detached,
      restarts: this.restarts.get(p.pid) ?? 0,
      site: p.site ? { path: p.site.path, line: p.site.line } : null,
      context: this.contextOf(p),
      memory: p.memory.map(([key, value]) => ({ key, value: r(value) })),
      mailbox: p.messages.map(r),
      result: p.status === 'done' ? r(p.result) : null,
      error: p.failure !== null ? r(p.failure) : null,
    };
  }

  /**
   * The actor rows: rebuilt only for the processes that changed since the last publish (an event of
   * theirs, a new status signature), a few others in turn, or all of them (`all`: the run's end).
   */
  private actors(all = false): ActorView[] {
    const run = this.run;
    if (!run) return [];
    const infos = run.statuses();
    const due: ProcessInfo[] = [];
    const reread = all ? infos.length : Math.min(ACTORS_REREAD_PER_PUBLISH, infos.length);
    const from = infos.length > 0 ? this.rereadFrom % infos.length : 0;
    const later = new Set<number>();
    infos.forEach((info, k) => {
      const sig = statusSig(info);
      const inTurn = (k - from + infos.length) % infos.length < reread;
      if (inTurn || this.actorsDue.has(info.pid) || this.actorSigs.get(info.pid) !== sig || !this.actorRows.has(info.pid)) {
        if (!all && due.length >= MAX_ROWS_PER_PUBLISH) {
          later.add(info.pid);
          return;
        }
        this.actorSigs.set(info.pid, sig);
        due.push(info);
      }
    });
    this.rereadFrom = from + reread;
    this.actorsDue.clear();
    for (const pid of later) this.actorsDue.add(pid);
    if (later.size > 0) this.publishSoon();
    for (const p of run.processesOf(due)) this.actorRows.set(p.pid, this.actorRow(p));
    if (this.actorRows.size > infos.length) {
      // processes that left the table
      const live = new Set(infos.map((i) => i.pid));
      for (const pid of [...this.actorRows.keys()]) {
        if (live.has(pid)) continue;
        this.actorRows.delete(pid);
        this.actorSigs.delete(pid);
      }
    }
    return infos.flatMap((i) => this.actorRows.get(i.pid) ?? []);
  }

  /** Notes the function `pid` runs (when known now) and returns the last one noted. */
  private nameOf(pid: number, name: string | null): string | null {
    if (name) this.names.set(pid, name);
    return this.names.get(pid) ?? null;
  }

  private snapshot(all = false): RunView {
    // the partial values of the replies streamed since the last publish (read once per publish, not per chunk)
    for (const a of this.partialDue) {
      const p = a.streamed ? partialReplyValue(this.streamedText.get(a) ?? '') : null;
      if (a.streamed && p) {
        a.streamed.partial = { value: clip(JSON.stringify(p.value) ?? 'null'), writing: p.writing ? { path: p.writing.path, text: p.writing.text.length > 200 ? `…${p.writing.text.slice(-200)}` : p.writing.text } : null };
      }
    }
    this.partialDue.clear();
    // the waits since the tracker last looked (it looks at one event in several with many processes)
    const last = this.timeline[this.timeline.length - 1];
    if (this.eventsSinceWaitLook > 0 && last) this.lookAtWaits(last.seq, last.ms);
    this.view.actors = this.actors(all);
    this.view.infers = [...this.infers.values()];
    // copies: the delta producer compares this with what it last sent
    this.view.messages = this.messages.size > 0 ? [...this.messages.values()].map((m) => ({ ...m })) : null;
    // every event: the webview draws the part in view, and the panel sends only what is new (run-delta.ts)
    this.view.timeline = this.timeline;
    return this.view;
  }

  private publishSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.options.publish(this.snapshot());
    }, this.options.throttleMs ?? 100);
  }

  /** Publishes now; `all` reads every actor again (the run's end), else only the ones that changed. */
  private flush(all = false): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.options.publish(this.snapshot(all));
  }
}
