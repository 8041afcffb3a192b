// Waits for the run panel's timeline: when an actor begins and stops waiting on something other
// than an effect (a message, a gather, a join, a scope, a sleep). The run's event stream records
// effects, not waits, so the runner shows this tracker the processes' states (Run.statuses, cheap)
// at each event; it answers with timeline items `process.wait` / `process.wake`. A wake is seen at
// the first event after it, so a wait's end is as precise as the events around it.
import type { SiteView, TimelineItem } from '../protocol/panel.js';

export interface ProcessState {
  pid: number;
  status: string;
  waitingOn: string | null;
}

export class WaitTracker {
  /** pid → what it waits on and the item that opened the wait (done once it wakes), for the waits open now */
  private readonly open = new Map<number, { on: string; item: TimelineItem }>();

  /** The waits that began or ended since the last look, as timeline items at (seq, ms). */
  observe(seq: number, ms: number, processes: readonly ProcessState[], siteOf: (pid: number) => SiteView | null = () => null): TimelineItem[] {
    const out: TimelineItem[] = [];
    const seen = new Set<number>();
    for (const p of processes) {
      seen.add(p.pid);
      const on = p.status === 'waiting' && p.waitingOn && p.waitingOn !== 'effect' ? p.waitingOn : null;
      const was = this.open.get(p.pid);
      if (was !== undefined && was.on !== on) out.push(this.wake(seq, ms, p.pid));
      if (on !== null && was?.on !== on) {
        const opened = { ...item(seq, ms, p.pid, 'process.wait', `waits on ${on}`, 'pending'), site: siteOf(p.pid) };
        this.open.set(p.pid, { on, item: opened });
        out.push(opened);
      }
    }
    for (const pid of [...this.open.keys()]) if (!seen.has(pid)) out.push(this.wake(seq, ms, pid));
    return out;
  }

  private wake(seq: number, ms: number, pid: number): TimelineItem {
    const was = this.open.get(pid)!;
    this.open.delete(pid);
    was.item.state = 'done';
    return item(seq, ms, pid, 'process.wake', `woke from ${was.on}`, 'done');
  }
}

function item(seq: number, ms: number, pid: number, kind: string, summary: string, state: TimelineItem['state']): TimelineItem {
  return { seq, ms, kind, pid, summary, state, site: null };
}
