// The timeline's model, without the DOM (tested in plain Node): one lane per actor, with its model
// calls, effects and waits as bars [start, end] in milliseconds, and marks for points in time
// (spawns, exits, retries, context demotions, timers). Built from a live run's events (RunView's
// timeline, which carries source sites) or from a stored run's journal (its timestamps).
import type { ActorView, CallPhasesView, JournalStepView, RunView, SiteView } from '../../protocol/panel.js';

export type BarKind = 'model' | 'effect' | 'wait';
/** done; failed (an error reply); pending (no reply yet, the run goes on); unknown (the run ended without one) */
export type BarState = 'done' | 'failed' | 'pending' | 'unknown';

export interface Bar {
  kind: BarKind;
  start: number;
  end: number;
  label: string;
  state: BarState;
  site: SiteView | null;
  /** the event or journal step that opened it */
  seq: number;
  /** a model call's phases, when the transport measured them: queue, network (sent → first byte), generation (first → last byte) */
  phases?: Phase[];
}

export interface Phase {
  kind: 'queue' | 'network' | 'generation';
  start: number;
  end: number;
}

/**
 * A model call's phases on its bar [start, end]: the transport's times count from the call's start
 * (the request), each clipped to the bar. Time in the host's queue is no longer drawn as model time.
 */
export function phasesOf(start: number, end: number, p: CallPhasesView): Phase[] {
  const at = (ms: number) => Math.min(end, Math.max(start, start + ms));
  const out: Phase[] = [];
  const add = (kind: Phase['kind'], a: number, b: number) => {
    if (at(b) > at(a)) out.push({ kind, start: at(a), end: at(b) });
  };
  add('queue', 0, p.queuedMs);
  if (p.firstByteMs !== null) {
    add('network', p.sentMs, p.firstByteMs);
    add('generation', p.firstByteMs, p.lastByteMs ?? end - start);
  }
  return out;
}

export interface Mark {
  at: number;
  kind: 'spawn' | 'exit' | 'retry' | 'context' | 'timer' | 'suspend';
  label: string;
}

export interface Lane {
  pid: number;
  label: string;
  /** when the actor started and ended (end: the timeline's end while it lives) */
  start: number;
  end: number;
  bars: Bar[];
  marks: Mark[];
}

export interface Lanes {
  lanes: Lane[];
  /** the timeline's end, in milliseconds (at least 1) */
  end: number;
}

/** How an actor is named: by the function it runs, then its pid (`worker #2`); `#2` when the name is unknown. */
export function actorLabel(pid: number, name: string | null | undefined): string {
  const n = name ? name.replace(/^<(.*)>$/, '$1') : pid === 1 ? 'main' : null;
  return n ? `${n} #${pid}` : `#${pid}`;
}

function laneOf(map: Map<number, Lane>, pid: number, names: Map<number, string | null | undefined>, at: number): Lane {
  let lane = map.get(pid);
  if (!lane) {
    lane = { pid, label: actorLabel(pid, names.get(pid)), start: at, end: -1, bars: [], marks: [] };
    map.set(pid, lane);
  }
  return lane;
}

function finish(map: Map<number, Lane>, end: number, ended: boolean): Lanes {
  const total = Math.max(1, end);
  const lanes = [...map.values()].sort((a, b) => a.pid - b.pid);
  for (const lane of lanes) {
    if (lane.end < 0) lane.end = total;
    for (const b of lane.bars) {
      if (b.end < 0) {
        b.end = total;
        // an effect without its outcome when the run ended: unknown; a wait stays open (it was waiting when the run stopped)
        if (b.state === 'pending' && ended && b.kind !== 'wait') b.state = 'unknown';
      }
    }
  }
  return { lanes, end: total };
}

const SUSPEND = '__suspend';

/** The lanes of a run the panel watched, from its events (sites included: a bar opens its source line). */
export function lanesFromEvents(run: RunView): Lanes {
  const names = new Map(run.actors.map((a) => [a.pid, a.name] as const));
  const map = new Map<number, Lane>();
  const open = new Map<number, Bar[]>(); // per pid, bars without their reply yet
  let end = 0;
  for (const t of run.timeline) {
    end = Math.max(end, t.ms);
    if (t.pid === null) continue;
    const lane = laneOf(map, t.pid, names, t.kind === 'process.spawn' ? t.ms : 0);
    const pending = open.get(t.pid) ?? [];
    open.set(t.pid, pending);
    const close = (kind: BarKind, failed: boolean): boolean => {
      const i = pending.findIndex((b) => b.kind === kind);
      if (i < 0) return false;
      const [b] = pending.splice(i, 1);
      b.end = t.ms;
      b.state = failed ? 'failed' : 'done';
      return true;
    };
    switch (t.kind) {
      case 'process.spawn':
        lane.start = t.ms;
        lane.marks.push({ at: t.ms, kind: 'spawn', label: t.summary });
        break;
      case 'process.exit':
        lane.end = t.ms;
        lane.marks.push({ at: t.ms, kind: 'exit', label: t.summary });
        break;
      case 'infer.request':
      case 'tool.request': {
        const tool = t.kind === 'tool.request' ? t.summary.replace(/^effect /, '') : '';
        const kind: BarKind = t.kind === 'infer.request' ? 'model' : tool === SUSPEND ? 'wait' : 'effect';
        const label = kind === 'wait' ? 'suspend' : t.summary.replace(/^effect /, '');
        const bar: Bar = { kind, start: t.ms, end: -1, label, state: t.state === 'unknown' && kind !== 'wait' ? 'unknown' : 'pending', site: t.site, seq: t.seq };
        lane.bars.push(bar);
        pending.push(bar); // closed by its reply below; still open at the end: pending, or unknown once the run ended
        break;
      }
      case 'infer.reply': {
        const b = pending.find((x) => x.kind === 'model');
        if (close('model', / \(invalid\)/.test(t.summary)) && b && t.phases) b.phases = phasesOf(b.start, b.end, t.phases);
        break;
      }
      case 'infer.error':
        close('model', true);
        break;
      case 'infer.delta': {
        // a streaming reply: its bar (still open, so it reaches the timeline's end) says how far it came
        const b = pending.find((x) => x.kind === 'model');
        if (b) b.label = `${b.label.replace(/ · streaming.*$/, '')} · ${t.summary}`;
        break;
      }
      case 'tool.reply':
        if (!close('effect', / failed$/.test(t.summary))) close('wait', / failed$/.test(t.summary));
        break;
      case 'process.wait':
        lane.bars.push({ kind: 'wait', start: t.ms, end: -1, label: t.summary, state: 'pending', site: t.site, seq: t.seq });
        pending.push(lane.bars[lane.bars.length - 1]);
        break;
      case 'process.wake':
        close('wait', false);
        break;
      case 'infer.retry':
      case 'http.retry':
        lane.marks.push({ at: t.ms, kind: 'retry', label: t.summary });
        break;
      case 'context.demote':
      case 'context.drop':
        lane.marks.push({ at: t.ms, kind: 'context', label: t.summary });
        break;
    }
  }
  const ended = run.status !== 'running' && run.status !== 'idle';
  for (const a of run.actors) laneOf(map, a.pid, names, 0);
  return finish(map, end, ended);
}

/** The lanes of a stored run, from its journal's timestamps (`names`: actor names the panel knows). */
export function lanesFromJournal(steps: JournalStepView[], actors: Pick<ActorView, 'pid' | 'name'>[] = []): Lanes {
  const names = new Map(actors.map((a) => [a.pid, a.name] as const));
  const map = new Map<number, Lane>();
  let end = 0;
  for (const s of steps) end = Math.max(end, s.at, s.doneAt ?? 0);
  for (const s of steps) {
    if (s.kind === 'timer') {
      let pids: number[] = [];
      try {
        pids = (JSON.parse(s.value) as { pids?: number[] }).pids ?? [];
      } catch {
        pids = [];
      }
      for (const pid of pids) laneOf(map, pid, names, 0).marks.push({ at: s.at, kind: 'timer', label: `step ${s.seq}: a timer fired` });
      continue;
    }
    if (s.pid < 0) continue;
    const lane = laneOf(map, s.pid, names, 0);
    if (s.kind === 'suspend') {
      lane.marks.push({ at: s.at, kind: 'suspend', label: `step ${s.seq}: suspend` });
      continue;
    }
    if (s.kind !== 'infer' && s.kind !== 'tool') continue;
    const state: BarState = s.status === 'ok' ? 'done' : s.status === 'error' ? 'failed' : s.status === 'unknown' ? 'unknown' : 'pending';
    lane.bars.push({
      kind: s.kind === 'infer' ? 'model' : 'effect',
      start: s.at,
      end: s.doneAt ?? -1,
      label: `${s.kind === 'infer' ? `infer ${s.name}` : s.name} (step ${s.seq})`,
      state,
      site: null,
      seq: s.seq,
    });
  }
  // main (#1) always has a lane, also when it journaled nothing itself (it only spawned and waited)
  if (steps.length > 0) laneOf(map, 1, names, 0);
  return finish(map, end, true);
}

/** Round tick positions for an axis from 0 to `end` ms: about `count` of them, at 1, 2 or 5 × 10^k. */
export function ticks(end: number, count = 6): number[] {
  if (end <= 0) return [0];
  const raw = end / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = 0; t <= end + 1e-9; t += step) out.push(Math.round(t * 1000) / 1000);
  return out;
}

/** A duration for a person: `0.4 ms`, `12 ms`, `1.25 s`. */
export function duration(ms: number): string {
  if (ms === 0) return '0';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
