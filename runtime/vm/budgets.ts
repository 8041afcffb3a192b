// Per-process budgets (issue 26, point 4): allocation, steps and time are charged to the process
// that spends them, and a process may carry limits of its own (`call("budget", ...)` for itself,
// `call("task_budget", ...)` for the tasks a scope starts from then on). A process that exhausts
// one fails — it cannot catch that — with a `BudgetExhausted` error its parent, supervisor or
// scope policy sees as a `ChildError`, like any crash. Messages are charged to their receiver.
import { VMError, typeName, unwrap, type Value } from '../values/index.js';

export interface Limits {
  /** allocation cells (runtime/vm/alloc.ts); 0 = only the run's budget */
  alloc: number;
  /** steps (backward jumps, calls, resumptions) */
  steps: number;
  /** milliseconds of the scheduler's time spent running this process's slices */
  timeMs: number;
  /** what the process had spent when the limits were set: `alloc` counts from there */
  allocFrom: number;
}

export type BudgetKind = 'alloc' | 'steps' | 'time';

/** A message's slot in a mailbox, charged to the receiver on top of the message's own copy. */
export const MESSAGE_COST = 2;

const FIELDS: Record<string, keyof Limits> = { alloc: 'alloc', steps: 'steps', time_ms: 'timeMs' };

/** `{"alloc": N, "steps": M, "time_ms": T}` (any subset) as limits; a missing one is 0 (none). */
export function limitsArg(tool: string, v: Value): Limits {
  const m = unwrap(v);
  if (!(m instanceof Map)) throw new VMError(`${tool} expects a map like {"alloc": 100000, "steps": 1000000, "time_ms": 500}, got ${typeName(m)}`);
  const limits: Limits = { alloc: 0, steps: 0, timeMs: 0, allocFrom: 0 };
  for (const [k, x] of m) {
    if (k === 'allocFrom') throw new VMError(`${tool}: unknown budget "${k}" (alloc, steps, time_ms)`);
    const field = Object.hasOwn(FIELDS, k) ? FIELDS[k] : undefined;
    if (!field) throw new VMError(`${tool}: unknown budget "${k}" (alloc, steps, time_ms)`);
    const n = unwrap(x);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new VMError(`${tool}: ${k} must be a whole number >= 0 (0 = no limit)`);
    limits[field] = n;
  }
  return limits;
}

export function limitsValue(l: Limits): Map<string, Value> {
  return new Map<string, Value>([
    ['alloc', l.alloc],
    ['steps', l.steps],
    ['time_ms', l.timeMs],
  ]);
}

const WHAT: Record<BudgetKind, string> = { alloc: 'allocation', steps: 'step', time: 'time' };

/** The error a process that exhausted a budget fails with. */
export function budgetError(kind: BudgetKind, limit: number, line: number, runWide: boolean): Map<string, Value> {
  const unit = kind === 'alloc' ? ' cells' : kind === 'time' ? ' ms' : '';
  const message = runWide
    ? `this process spent the last of the run's ${WHAT[kind]} budget of ${limit}${unit}; it failed so the others can go on`
    : `this process exhausted its ${WHAT[kind]} budget of ${limit}${unit}`;
  return new Map<string, Value>([
    ['type', 'BudgetExhausted'],
    ['budget', kind],
    ['limit', limit],
    ['message', message],
    ['line', line],
  ]);
}
