// `call("select", arms)`: one wait on any mix of sources — a message (by pattern and/or sender), a
// process's completion, a timer or deadline, a process's runtime event — that takes the first arm
// (in the order written) whose source is ready, and runs its `then` closure with the value.
//
// Nothing is consumed until an arm is chosen, so a select that is cancelled (or loses to another
// arm) leaves every message in the mailbox. Every input it decides on is deterministic on replay
// (the mailbox and process endings follow the schedule; a timer's firing is journaled by the
// durable run, runtime/durable), so a replayed run takes the same arm.
import { PidVal, StructVal, VMError, equals, typeName, unwrap, type Value } from '../values/index.js';
import { BLOCK, gatheredValue, type ActorRuntime } from './actors.js';
import type { Process } from './process.js';

export interface Chosen {
  /** the arm's position */
  index: number;
  /** its `name`, or its position */
  branch: Value;
  value: Value;
  then: Value | undefined;
}

interface Arm {
  index: number;
  name: Value;
  message?: Map<string, Value> | null;
  from?: PidVal;
  done?: Process;
  after?: number;
  event?: { of: Process; since: number };
  then?: Value;
}

const KEYS = new Set(['message', 'from', 'done', 'after', 'deadline', 'event', 'since', 'then', 'name']);

function pid(rt: ActorRuntime, v: Value, key: string): Process {
  const u = unwrap(v);
  if (!(u instanceof PidVal)) throw new VMError(`select: "${key}" expects a pid, got ${typeName(u)}`);
  const q = rt.process(u.id);
  if (!q) throw new VMError(`select: no process ${u.id}`);
  return q;
}

function num(v: Value, key: string): number {
  const n = unwrap(v);
  if (typeof n !== 'number' || !(n >= 0)) throw new VMError(`select: "${key}" expects milliseconds (a Num >= 0), got ${typeName(n)}`);
  return n;
}

function parseArms(rt: ActorRuntime, p: Process, v: Value): Arm[] {
  const list = unwrap(v);
  if (!Array.isArray(list) || list.length === 0) throw new VMError(`select expects a non-empty List of arms like {"message": {"type": "result"}, "then": f}, got ${typeName(list)}`);
  return list.map((a, index) => {
    const m = unwrap(a);
    if (!(m instanceof Map)) throw new VMError(`select: arm ${index} must be a Map, got ${typeName(m)}`);
    for (const k of m.keys()) if (!KEYS.has(k)) throw new VMError(`select: arm ${index} has an unknown key "${k}" (message, from, done, after, deadline, event, since, then, name)`);
    const arm: Arm = { index, name: m.has('name') ? m.get('name')! : index };
    if (m.has('message')) {
      const pat = unwrap(m.get('message')!);
      if (pat !== null && !(pat instanceof Map)) throw new VMError(`select: arm ${index}'s "message" pattern must be a Map (or null for any message), got ${typeName(pat)}`);
      arm.message = pat;
    }
    if (m.has('from')) {
      const f = unwrap(m.get('from')!);
      if (!(f instanceof PidVal)) throw new VMError(`select: arm ${index}'s "from" expects a pid, got ${typeName(f)}`);
      arm.from = f;
    }
    if (m.has('done')) arm.done = pid(rt, m.get('done')!, 'done');
    if (m.has('after')) arm.after = num(m.get('after')!, 'after');
    if (m.has('deadline')) arm.after = Math.max(0, num(m.get('deadline')!, 'deadline') - rt.now());
    if (m.has('event')) arm.event = { of: pid(rt, m.get('event')!, 'event'), since: m.has('since') ? num(m.get('since')!, 'since') : 0 };
    if (m.has('then')) arm.then = m.get('then')!;
    const sources = [arm.message !== undefined || arm.from !== undefined, arm.done, arm.after !== undefined, arm.event].filter(Boolean).length;
    if (sources !== 1) throw new VMError(`select: arm ${index} must wait on exactly one source (a message, "done", "after"/"deadline" or "event"), it names ${sources}`);
    if (arm.done === p) throw new VMError('select: a process cannot wait for its own completion');
    return arm;
  });
}

/** Whether message `m` fits an arm: every key of the pattern present with an equal value, and the sender. */
function fits(arm: Arm, m: Value): boolean {
  const u = unwrap(m);
  const fields = u instanceof Map ? u : u instanceof StructVal ? u.fields : null;
  if (arm.from !== undefined) {
    const f = fields ? unwrap(fields.get('from') ?? null) : null;
    if (!(f instanceof PidVal) || f.id !== arm.from.id) return false;
  }
  if (arm.message) {
    if (!fields) return false;
    for (const [k, v] of arm.message) if (!fields.has(k) || !equals(fields.get(k)!, v)) return false;
  }
  return true;
}

/**
 * The arm to run, or BLOCK (the caller waits: a message, an ending, an event or its deadline wakes
 * it, and it asks again). `p.timedOut` says that its deadline fired (journaled in a durable run).
 */
export function select(rt: ActorRuntime, p: Process, args: Value[]): Chosen | typeof BLOCK {
  if (args.length !== 1) throw new VMError(`select expects one List of arms, got ${args.length} arguments`);
  const arms = parseArms(rt, p, args[0]);
  let timer: Arm | undefined;
  for (const arm of arms) {
    if (arm.message !== undefined || arm.from !== undefined) {
      if (p.inbox.has((m) => fits(arm, m))) return choose(p, arm, p.inbox.take((m) => fits(arm, m))!);
    } else if (arm.done) {
      if (arm.done.finished) return choose(p, arm, gatheredValue(rt, arm.done));
    } else if (arm.event) {
      const events = arm.event.of.peek('events');
      if (events.length > arm.event.since) return choose(p, arm, rt.copy(events[arm.event.since]));
    } else if (arm.after !== undefined && (!timer || arm.after < timer.after!)) timer = arm;
  }
  if (timer) {
    if (p.timedOut) return choose(p, timer, null);
    if (p.deadline === null) p.deadline = rt.now() + timer.after!;
  }
  for (const arm of arms) {
    const q = arm.done ?? arm.event?.of;
    if (q && !q.waiters.includes(p.id)) q.waiters.push(p.id);
  }
  p.waiting = 'select';
  return BLOCK;
}

function choose(p: Process, arm: Arm, value: Value): Chosen {
  p.timedOut = false;
  p.deadline = null;
  return { index: arm.index, branch: arm.name, value, then: arm.then };
}
