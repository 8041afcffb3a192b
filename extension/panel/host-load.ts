// What a run in the panel costs the extension host's thread, measured when TURN_PANEL_PROFILE names a
// file (the e2e of issue 44 sets it; off otherwise: no timer, no histogram). The extension host runs
// the VM, the Runner and every other extension's code, and the editor's hover goes through it (the
// language client lives there), so a hover during a run waits on its event loop. Per run, one JSON
// line is appended to the file: the event loop's delay (perf_hooks, sampled every 10 ms: how long a
// request arriving at a random moment waits), the process's CPU time, and the time the panel spent
// publishing views (the Runner's snapshot, the delta, the post) against the run's wall time.
import * as fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface HostLoad {
  /** times a publish (the Runner's view, its delta and the post) */
  publishing<T>(f: () => T): T;
  /** the run ended: appends its line */
  end(fields: Record<string, unknown>): void;
}

const OFF: HostLoad = { publishing: (f) => f(), end: () => undefined };

export function hostLoadProbe(file = process.env.TURN_PANEL_PROFILE): HostLoad {
  if (!file) return OFF;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let publishMs = 0;
  let publishMaxMs = 0;
  let publishes = 0;
  /** from the run asked (the panel's launch) to its first view published: what Stop's showing waits on in the host */
  let firstPublishMs: number | null = null;
  const ms = (ns: number) => Math.round(ns / 1e6);
  return {
    publishing(f) {
      const s = performance.now();
      firstPublishMs ??= Math.round(s - t0);
      try {
        return f();
      } finally {
        const d = performance.now() - s;
        publishMs += d;
        publishMaxMs = Math.max(publishMaxMs, d);
        publishes++;
      }
    },
    end(fields) {
      delay.disable();
      const cpu = process.cpuUsage(cpu0);
      const line = {
        ...fields,
        wallMs: Math.round(performance.now() - t0),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
        firstPublishMs,
        publishes,
        publishMs: Math.round(publishMs),
        publishMaxMs: Math.round(publishMaxMs),
      };
      try {
        fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
      } catch {
        // a measurement that cannot be written is lost, not the run
      }
    },
  };
}
