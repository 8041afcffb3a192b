// Process ↔ SnapshotData (runtime/store/serialize.ts): the whole VM at a safe point, for
// `turn inspect` and as the state committed with `suspend;`. See docs/durability.md ("Snapshots").
import type { Context } from '../context/index.js';
import type { ContextSnapshot, Json, ProcessSnapshot, SnapshotData, Slot } from '../store/serialize.js';
import type { VM } from '../vm/index.js';
import type { Process } from '../vm/process.js';

const STATUS = ['ready', 'blocked', 'effect', 'done', 'failed'];

export function contextSnapshot(c: Context): ContextSnapshot {
  return { limits: { working: c.limits.working, episodic: c.limits.episodic }, system: c.system, working: c.working, episodic: c.episodic };
}

export function processSnapshot(p: Process): ProcessSnapshot {
  const values: Record<string, Slot> = { result: p.result, failure: p.failure ? p.failure.value : null, events: p.events };
  p.frames.forEach((f, i) => (values[`frame${i}`] = f.closure));
  const effect: Json =
    p.effect === null
      ? null
      : p.effect.kind === 'infer'
        ? { kind: 'infer', name: p.effect.desc.typeName }
        : { kind: 'tool', name: p.effect.request.name };
  const state: Json = {
    status: STATUS[p.status] ?? String(p.status),
    parent: p.parent,
    linked: p.linked,
    sp: p.sp,
    frames: p.frames.map((f) => ({ proto: f.proto, ip: f.ip, bp: f.bp, ret: f.ret, module: f.module })),
    handlers: p.handlers.map((h) => ({ frame: h.frame, ip: h.ip, sp: h.sp })),
    waiting: p.waiting,
    effect,
    deadline: p.deadline,
    timedOut: p.timedOut,
    cancel: p.cancel,
    cancelReason: p.cancelReason,
    detached: p.detached,
    gatherCursor: p.gatherCursor,
    watchers: p.watchers,
    loading: p.loading,
    monitors: p.monitors,
    waiters: p.waiters,
    joining: p.joining,
    scopes: p.scopes.map((s) => ({ id: s.id, policy: s.policy, tasks: s.tasks, handlers: s.handlers, decidedBy: s.decidedBy })),
    ownerScope: p.ownerScope,
    invokes: p.invokes.map((r) => ({ handlers: r.handlers, saved: contextSnapshot(r.saved) as unknown as Json })),
  };
  return {
    pid: p.id,
    state,
    stack: p.stack.slice(0, p.sp),
    memory: p.memory,
    mailbox: p.mailbox,
    context: contextSnapshot(p.context),
    values,
  };
}

/** The whole VM: every process (finished ones too, for their results), at journal entry `seq`. */
export function vmSnapshot(vm: VM, seq: number, semanticsVersion: string, scheduler: Json): SnapshotData {
  return {
    bytecodeHash: vm.bundle.version,
    semanticsVersion,
    seq,
    scheduler,
    processes: [...vm.processes()].map(processSnapshot),
  };
}
