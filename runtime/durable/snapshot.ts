// Process ↔ SnapshotData (runtime/store/serialize.ts): the whole VM at a safe point — committed with
// `suspend;` (issue 17), or taken automatically between the scheduler's slices once the journal has
// grown enough (a *checkpoint*, issue 45; the policy is in checkpoints.ts) — shown by `turn
// inspect`, and restored by a resume, which then replays only the journal's tail after it. See
// docs/durability.md ("Snapshots").
import { Context } from '../context/index.js';
import { SUSPEND_TOOL } from '../ports/durable.js';
import type { ContextSnapshot, Json, ProcessSnapshot, SnapshotData, Slot } from '../store/serialize.js';
import type { ClosureVal, Value } from '../values/index.js';
import type { VM } from '../vm/index.js';
import { leftOf, type Limits } from '../vm/budgets.js';
import { EFFECT, Process, READY, type AgentGrants, type Failure, type Frame, type SchedulerState, type SchedulerWaits, type ScopeRecord, type Site, type StackEntry, type Waiting } from '../vm/process.js';

const STATUS = ['ready', 'blocked', 'effect', 'done', 'failed'];

/** How many steps of each kind the run had taken at the safe point: the journal keys it consumed. */
export interface Counters {
  effects: number;
  clocks: number;
  checks: number;
  waits: number;
  suspends: number;
  /** output lines journaled (issue 26; 0 in snapshots of an older Turn, whose runs journal none) */
  outputs: number;
  /** agents' grants journaled (absent or 0 in snapshots of an older Turn, whose runs journal none) */
  grants?: number;
  /** block ordinals taken (request-blocks.ts; absent in snapshots of an older Turn, whose runs store no blocks) */
  blocks?: number;
  /** prompt-piece block ordinals taken (the same) */
  pieces?: number;
}

/** A context's tiers as the Context class keeps them (token counts included, so a restore never re-tokenizes). */
interface TierData {
  texts: string[];
  tokens: number[];
  push(text: string, tokens?: number): void;
}
const tiersOf = (c: Context): { p0: TierData; p1: TierData; p2: TierData } => c as unknown as { p0: TierData; p1: TierData; p2: TierData };

export function contextSnapshot(c: Context): ContextSnapshot {
  const t = tiersOf(c);
  return {
    limits: { working: c.limits.working, episodic: c.limits.episodic },
    system: c.system,
    working: c.working,
    episodic: c.episodic,
    tokens: { system: t.p0.tokens, working: t.p1.tokens, episodic: t.p2.tokens },
  };
}

export function contextFrom(s: ContextSnapshot): Context {
  const c = new Context({ working: s.limits.working, episodic: s.limits.episodic });
  const t = tiersOf(c);
  const fill = (tier: TierData, texts: string[], tokens: number[] | undefined) => texts.forEach((text, i) => tier.push(text, tokens?.[i] ?? -1));
  fill(t.p0, s.system, s.tokens?.system);
  fill(t.p1, s.working, s.tokens?.working);
  fill(t.p2, s.episodic, s.tokens?.episodic);
  return c;
}

const EMPTY_CONTEXT = (): ContextSnapshot => contextSnapshot(new Context());

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
    ...(p.label !== null ? { label: p.label } : {}),
    ...(p.fn !== null ? { fn: p.fn } : {}),
    ...(p.after.length > 0 ? { after: [...p.after] } : {}),
    ...(p.grants ? { grants: { agent: p.grants.agent, categories: [...p.grants.categories] } } : {}),
    // a process's own limits go on from what it has left (its spending counters are not kept)
    ...(p.limits ? { limits: limitsJson(leftOf(p.limits, p)) } : {}),
    gatherCursor: p.gatherCursor,
    watchers: p.watchers,
    loading: p.loading,
    monitors: p.monitors,
    waiters: p.waiters,
    joining: p.joining,
    scopes: p.scopes.map((s) => ({ id: s.id, policy: s.policy, tasks: s.tasks, handlers: s.handlers, decidedBy: s.decidedBy, ...(s.taskLimits ? { taskLimits: limitsJson(s.taskLimits) } : {}) })),
    ownerScope: p.ownerScope,
    invokes: p.invokes.map((r) => ({ handlers: r.handlers, saved: contextSnapshot(r.saved) as unknown as Json })),
    hasContext: p.hasContext(),
    ...(p.failure ? { failureSite: p.failure.site as unknown as Json, failureStack: p.failure.stack as unknown as Json } : {}),
  };
  return {
    pid: p.id,
    state,
    stack: p.stack.slice(0, p.sp),
    memory: p.memory,
    mailbox: p.mailbox,
    context: p.hasContext() ? contextSnapshot(p.context) : EMPTY_CONTEXT(),
    values,
  };
}

/**
 * Why the VM at this safe point cannot be restored (null: it can). A restore resumes the process
 * that suspended with every other process where it stood; an effect in flight or a process queued
 * to run would need the scheduler's promises and queue, which a snapshot does not hold.
 */
function notRestorable(s: SchedulerState & SchedulerWaits, suspender: number | null): string | null {
  if (s.seeded) return 'the run draws its scheduling order from a seed';
  if (suspender === null) {
    // a checkpoint: the ready queue is kept (its order is the scheduler's next slices); nothing may be in flight
    if (s.pending.length > 0) return 'effects were in flight';
    for (const p of s.processes) if (p.effect !== null || p.status === EFFECT) return `process #${p.id} waited on an effect`;
    // a process cut inside its slice goes on first without the checks a slice starts with: none may be owed
    const front = (s.carried ?? 0) > 0 ? s.processes.find((p) => p.id === s.ready[0]) : undefined;
    if (front && (front.cancel === 'requested' || front.joining.length > 0)) return `process #${front.id} had a cancellation or a join to take`;
    return null;
  }
  if (s.ready.length > 0) return 'other processes were ready to run';
  if (s.pending.length !== 1 || s.pending[0] !== suspender) return 'other effects were in flight';
  for (const p of s.processes) if (p.id !== suspender && (p.effect !== null || p.status === EFFECT)) return `process #${p.id} waited on an effect`;
  return null;
}

/** The journal entry a checkpoint was taken after: a resume checks that the journal still holds it. */
export interface LastEntry {
  seq: number;
  kind: string;
  key: string | null;
}

/**
 * A checkpoint (issue 45): the whole VM between two slices of the scheduler, reflecting journal
 * entries <= `last.seq`; or why the VM cannot be snapshotted here (an effect in flight, a seeded
 * scheduler), in which case nothing is encoded and the caller tries again at a later safe point.
 */
export function checkpointSnapshot(vm: VM, last: LastEntry, semanticsVersion: string, counters: Counters): SnapshotData | string {
  const why = notRestorable(vm.durableState(), null);
  return why ?? vmSnapshot(vm, last.seq, semanticsVersion, counters, null, last);
}

/**
 * The whole VM (every process, finished ones too, for their results) at the `suspend;` of process
 * `suspender` (null: at a checkpoint between slices, with its ready queue), reflecting journal
 * entries <= `seq`.
 */
export function vmSnapshot(vm: VM, seq: number, semanticsVersion: string, counters: Counters, suspender: number | null, last?: LastEntry): SnapshotData {
  const s = vm.durableState();
  const why = notRestorable(s, suspender);
  const processes = s.processes.map(processSnapshot);
  const modules = [...s.moduleCache.keys()];
  const main = processes.find((p) => p.pid === s.main);
  if (main) {
    // the VM's own values ride with the main process, in the snapshot's one object table
    main.values['vm.methods'] = s.methods;
    main.values['vm.modules'] = modules.map((m) => s.moduleCache.get(m)!);
  }
  const scheduler: Json = {
    ...counters,
    restorable: why ?? true,
    ...(last ? { last: { seq: last.seq, kind: last.kind, key: last.key } } : {}),
    vm: {
      main: s.main,
      nextPid: s.nextPid,
      used: s.used,
      allocLeft: s.allocLeft,
      inferSeq: s.inferSeq,
      now: s.now,
      sleeping: s.sleeping,
      suspended: suspender,
      ...(suspender === null ? { ready: s.ready, carried: s.carried ?? 0 } : {}),
      modules,
      resultSite: (s.resultSite ?? null) as unknown as Json,
    },
  };
  return { bytecodeHash: vm.bundle.version, semanticsVersion, seq, scheduler, processes };
}

/** A snapshot a resume can start from. */
export interface RestorePoint {
  /** the snapshot reflects journal entries <= seq */
  seq: number;
  state: SchedulerState;
  counters: Counters;
  /** the process whose `suspend;` the run resumes from (null: a checkpoint, which resumes its ready queue) */
  suspended: number | null;
  /** a checkpoint's last journal entry, which the journal must still hold at that seq */
  last?: LastEntry;
  /** the highest scope id the snapshot holds */
  maxScope: number;
}

class Unrestorable extends Error {}

function need<T>(ok: boolean, what: string, v: T): T {
  if (!ok) throw new Unrestorable(what);
  return v;
}

const num = (v: unknown, what: string): number => need(typeof v === 'number', what, v as number);
const nums = (v: unknown, what: string): number[] => need(Array.isArray(v) && v.every((x) => typeof x === 'number'), what, v as number[]);

/** the longest function name kept from a snapshot (a store is outside data) */
const MAX_FN_NAME = 200;
function lastEntryFrom(x: unknown): LastEntry {
  const l = need(x !== null && typeof x === 'object', 'last journal entry', x as Record<string, unknown>);
  need(typeof l.kind === 'string' && (l.key === null || typeof l.key === 'string'), 'last journal entry', 0);
  return { seq: num(l.seq, 'last journal entry'), kind: l.kind as string, key: l.key as string | null };
}

/** The function a process was spawned to run, as a snapshot holds it: a short one-line string, else none. */
export function spawnedAs(x: unknown): string | null {
  return typeof x === 'string' && x.length > 0 && x.length <= MAX_FN_NAME && !/[\u0000-\u001f\u007f]/.test(x) ? x : null;
}

/** An agent's grants as a snapshot holds them (absent: none, and in snapshots older than agents' capabilities). */
function grantsFrom(x: unknown): AgentGrants | null {
  if (!x || typeof x !== 'object') return null;
  const { agent, categories } = x as { agent?: unknown; categories?: unknown };
  need(typeof agent === 'string' && Array.isArray(categories) && categories.every((c) => typeof c === 'string'), 'grants', 0);
  return { agent: agent as string, categories: [...(categories as string[])] };
}

function limitsJson(l: Limits): Json {
  return { alloc: l.alloc, steps: l.steps, timeMs: l.timeMs };
}

/** Limits as a snapshot holds them (absent: none, and in snapshots older than kept limits). */
function limitsFrom(x: unknown): Limits | null {
  if (!x || typeof x !== 'object') return null;
  const { alloc, steps, timeMs } = x as Record<string, unknown>;
  const whole = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  need(whole(alloc) && whole(steps) && whole(timeMs), 'limits', 0);
  return { alloc: alloc as number, steps: steps as number, timeMs: timeMs as number, allocFrom: 0 };
}

function restoreProcess(ps: ProcessSnapshot, suspended: number | null): Process {
  const st = ps.state as Record<string, unknown>;
  need(st !== null && typeof st === 'object', 'process state', st);
  const p = new Process(ps.pid, num(st.parent, 'parent'), st.linked === true);
  p.status = need(STATUS.includes(String(st.status)), `status ${String(st.status)}`, STATUS.indexOf(String(st.status)));
  p.sp = num(st.sp, 'sp');
  p.stack = ps.stack as Value[];
  need(p.stack.length === p.sp, 'stack height', 0);
  const frames = need(Array.isArray(st.frames), 'frames', st.frames as Record<string, number>[]);
  p.frames = frames.map((f, i): Frame => {
    const closure = ps.values[`frame${i}`] as ClosureVal;
    need(closure !== null && typeof closure === 'object' && 'proto' in closure, `frame ${i}`, 0);
    return { closure, proto: num(f.proto, 'proto'), ip: num(f.ip, 'ip'), bp: num(f.bp, 'bp'), ret: num(f.ret, 'ret'), module: num(f.module, 'module') };
  });
  p.handlers = (st.handlers as { frame: number; ip: number; sp: number }[]).map((h) => ({ frame: h.frame, ip: h.ip, sp: h.sp }));
  p.waiting = (st.waiting ?? null) as Waiting | null;
  p.deadline = (st.deadline ?? null) as number | null;
  p.timedOut = st.timedOut === true;
  p.cancel = st.cancel as Process['cancel'];
  p.cancelReason = String(st.cancelReason ?? '');
  p.detached = st.detached === true;
  // a name as process_name allows it (a store is outside data: anything else is no name)
  p.label = typeof st.label === 'string' && st.label.length > 0 && st.label.length <= 80 ? st.label : null;
  p.fn = spawnedAs(st.fn);
  // the pids it depends on (process_after), as many as process_after allows
  p.after = st.after === undefined ? [] : nums(st.after, 'after').slice(0, 256);
  p.grants = grantsFrom(st.grants);
  p.limits = limitsFrom(st.limits);
  p.gatherCursor = num(st.gatherCursor, 'gatherCursor');
  p.watchers = nums(st.watchers, 'watchers');
  p.loading = nums(st.loading, 'loading');
  p.monitors = nums(st.monitors, 'monitors');
  p.waiters = nums(st.waiters, 'waiters');
  p.joining = nums(st.joining, 'joining');
  p.scopes = (st.scopes as ScopeRecord[]).map((s) => {
    const taskLimits = limitsFrom(s.taskLimits);
    const { taskLimits: _stored, ...rest } = s;
    return { ...rest, tasks: [...s.tasks], ...(taskLimits ? { taskLimits } : {}) };
  });
  p.ownerScope = (st.ownerScope ?? null) as Process['ownerScope'];
  p.invokes = (st.invokes as { handlers: number; saved: ContextSnapshot }[]).map((r) => ({ handlers: r.handlers, saved: contextFrom(r.saved) }));
  if (st.hasContext === true) p.context = contextFrom(ps.context);
  if (ps.memory.size > 0) p.memory = ps.memory;
  p.mailbox = ps.mailbox;
  p.result = (ps.values.result ?? null) as Value;
  p.events = (ps.values.events ?? []) as Value[];
  if (st.failureSite) {
    p.failure = { value: (ps.values.failure ?? null) as Value, site: st.failureSite as Site, stack: (st.failureStack ?? []) as StackEntry[] } satisfies Failure;
  }
  if (suspended !== null && ps.pid === suspended) {
    need(p.status === EFFECT, 'the suspended process waits on its suspend', 0);
    p.effect = { kind: 'tool', request: { name: SUSPEND_TOOL, args: [], pid: p.id } };
  } else need(st.effect === null, `process #${p.id} waited on an effect`, 0);
  return p;
}

/**
 * The restore point a decoded snapshot gives, or why it cannot be restored (a snapshot of another
 * shape, taken where a restore is not possible, or damaged in a way the decoder could not see).
 */
export function restorePoint(data: SnapshotData): RestorePoint | string {
  const sch = data.scheduler as Record<string, unknown>;
  if (!sch || typeof sch !== 'object') return 'it holds no scheduler state';
  if (sch.restorable !== true) return typeof sch.restorable === 'string' ? `it was taken where ${sch.restorable}` : 'it was taken by a Turn that did not make restorable snapshots';
  try {
    const v = sch.vm as Record<string, unknown>;
    need(v !== null && typeof v === 'object', 'scheduler state', 0);
    const suspended = v.suspended === null ? null : num(v.suspended, 'suspended');
    const processes = data.processes.map((ps) => restoreProcess(ps, suspended));
    const byId = new Map(processes.map((p) => [p.id, p]));
    const mainId = num(v.main, 'main');
    const main = need(byId.has(mainId), 'main process', data.processes.find((p) => p.pid === mainId)!);
    if (suspended !== null) need(byId.has(suspended), 'suspended process', 0);
    // a checkpoint's ready queue: distinct processes that are ready to run, and its last journal entry
    const ready = suspended === null ? nums(v.ready, 'ready') : undefined;
    if (ready) need(new Set(ready).size === ready.length && ready.every((id) => byId.get(id)?.status === READY), 'ready queue', 0);
    const carried = ready && v.carried !== undefined ? num(v.carried, 'carried slice') : 0;
    need(Number.isSafeInteger(carried) && carried >= 0 && (carried === 0 || (ready?.length ?? 0) > 0), 'carried slice', 0);
    const last = suspended === null ? lastEntryFrom(sch.last) : undefined;
    const methods = main.values['vm.methods'];
    need(methods instanceof Map, 'method tables', 0);
    const moduleIds = nums(v.modules, 'modules');
    const moduleValues = main.values['vm.modules'];
    need(Array.isArray(moduleValues) && moduleValues.length === moduleIds.length, 'module values', 0);
    const sleeping = nums(v.sleeping, 'sleeping');
    need(sleeping.every((id) => byId.has(id)), 'sleepers', 0);
    const state: SchedulerState = {
      processes,
      main: mainId,
      nextPid: num(v.nextPid, 'nextPid'),
      used: num(v.used, 'used'),
      allocLeft: num(v.allocLeft, 'allocLeft'),
      inferSeq: num(v.inferSeq, 'inferSeq'),
      now: num(v.now, 'now'),
      sleeping,
      methods: new Map([...(methods as Map<string, Map<string, ClosureVal>>)].map(([k, t]) => [k, new Map(t)])),
      moduleCache: new Map(moduleIds.map((m, i) => [m, (moduleValues as Value[])[i]])),
      resultSite: (v.resultSite ?? undefined) as Site | undefined,
      ...(ready ? { ready, carried } : {}),
    };
    const counters: Counters = {
      effects: num(sch.effects, 'effects'),
      clocks: num(sch.clocks, 'clocks'),
      checks: num(sch.checks, 'checks'),
      waits: num(sch.waits, 'waits'),
      suspends: num(sch.suspends, 'suspends'),
      outputs: sch.outputs === undefined ? 0 : num(sch.outputs, 'outputs'),
      grants: sch.grants === undefined ? 0 : num(sch.grants, 'grants'),
      blocks: sch.blocks === undefined ? 0 : num(sch.blocks, 'blocks'),
      pieces: sch.pieces === undefined ? 0 : num(sch.pieces, 'pieces'),
    };
    let maxScope = 0;
    for (const p of processes) for (const s of p.scopes) maxScope = Math.max(maxScope, s.id);
    if (last) need(last.seq === data.seq, 'last journal entry', 0);
    return { seq: data.seq, state, counters, suspended, maxScope, ...(last ? { last } : {}) };
  } catch (e) {
    if (e instanceof Unrestorable) return `its ${e.message} does not fit this VM`;
    throw e;
  }
}
