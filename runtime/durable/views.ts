// A VM's processes as the editor shows them: a live run's (runtime/run/run.ts, `processes()`) and
// a replayed step's (time travel, travel.ts). Here, below the run API, so the durability layer
// does not reach up into it for them.
import type { ContextLimits } from '../context/index.js';
import { userLocation } from '../locate.js';
import type { Value } from '../values/index.js';
import type { ProcessInfo } from '../vm/actors.js';
import type { VM } from '../vm/index.js';

/** One process as the editor shows it. */
export interface ProcessView extends ProcessInfo {
  /** the function it runs (its bottom frame), when it still has frames */
  name: string | null;
  /** the pids it depends on (`process_after`: std/graph's dependencies), drawn as edges by the graph view */
  after: number[];
  /** where it stands, when it still has frames */
  site: { path: string; line: number; column: number } | null;
  context: { P0: string[]; P1: string[]; P2: string[]; limits: ContextLimits };
  memory: [string, Value][];
  /** the messages waiting in its mailbox (`mailbox` is their count) */
  messages: Value[];
  /** its result, when done; its failure's value, when failed */
  result: Value;
  failure: Value | null;
}

/** Every process of a VM, as the editor shows it (a run's `processes()`, a replayed step's state). */
export function processViews(vm: VM): ProcessView[] {
  return vm.inspectProcesses().map((info) => processView(vm, info));
}

/** One process as the editor shows it, from its status (`inspect`): what a view that updates only the processes that changed reads. */
export function processView(vm: VM, info: ProcessInfo): ProcessView {
  const p = vm.process(info.pid)!;
  const t = p.context.tiers();
  const bottom = p.frames[0];
  return {
    ...info,
    // the name it gave itself (std/graph: its node), else the function it runs
    // (or ran: a finished process has no frames, and is named by what it was spawned to run)
    name: p.label ?? (bottom ? bottom.closure.name ?? null : null) ?? p.fn,
    after: [...p.after],
    site: p.frames.length > 0 ? userLocation(vm.bundle, vm.site(p), vm.stackTrace(p)).site : null,
    context: { P0: t.system, P1: t.working, P2: t.episodic, limits: { ...p.context.limits } },
    memory: [...p.memory],
    messages: p.mailbox.slice(),
    result: info.status === 'done' ? p.result : null,
    failure: info.status === 'failed' && p.failure ? p.failure.value : null,
  };
}
