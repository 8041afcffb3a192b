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

const FIELDS: Record<string, 'alloc' | 'steps' | 'timeMs'> = { alloc: 'alloc', steps: 'steps', time_ms: 'timeMs' };
const NAMES = { alloc: 'alloc', steps: 'steps', timeMs: 'time_ms' } as const;
const UNITS = { alloc: ' cells', steps: ' steps', timeMs: ' ms' } as const;

/** The limits a call asks for: only the ones it names (0 = no limit). */
export type RequestedLimits = Partial<Record<'alloc' | 'steps' | 'timeMs', number>>;

/** `{"alloc": N, "steps": M, "time_ms": T}` (any subset) as the limits it names. */
export function limitsArg(tool: string, v: Value): RequestedLimits {
  const m = unwrap(v);
  if (!(m instanceof Map)) throw new VMError(`${tool} expects a map like {"alloc": 100000, "steps": 1000000, "time_ms": 500}, got ${typeName(m)}`);
  const limits: RequestedLimits = {};
  for (const [k, x] of m) {
    const field = Object.hasOwn(FIELDS, k) ? FIELDS[k] : undefined;
    if (!field) throw new VMError(`${tool}: unknown budget "${k}" (alloc, steps, time_ms)`);
    const n = unwrap(x);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new VMError(`${tool}: ${k} must be a whole number >= 0 (0 = no limit)`);
    limits[field] = n;
  }
  return limits;
}

/** What a process has spent against its limits (budgets count from when they were set). */
export interface Spending {
  spent: number;
  steps: number;
  timeMs: number;
}

/**
 * What is left of `limits` after `used` (0 = no limit). A limit already reached keeps 1 left, never
 * 0: 0 would read as "no limit".
 */
export function leftOf(limits: Limits | null, used: Spending): Limits {
  if (limits === null) return { alloc: 0, steps: 0, timeMs: 0, allocFrom: used.spent };
  const left = (limit: number, spent: number): number => (limit === 0 ? 0 : Math.max(1, limit - spent));
  return {
    alloc: left(limits.alloc, used.spent - limits.allocFrom),
    steps: left(limits.steps, used.steps),
    timeMs: left(limits.timeMs, used.timeMs),
    allocFrom: used.spent,
  };
}

/**
 * The limits `requested` asks for, within `ceiling` (what the process has left): a process can only
 * lower a limit (issue: "limits can be raised from inside"). A limit it does not name keeps what is
 * left of it. Asking for more than is left, or for none (0) where there is a limit, is refused with
 * a Turn error at the call, which the program can catch: a request the runtime silently cut would
 * let a program believe it has a budget it does not have.
 */
export function lowered(tool: string, ceiling: Limits, requested: RequestedLimits): Limits {
  const out: Limits = { ...ceiling };
  for (const field of ['alloc', 'steps', 'timeMs'] as const) {
    const want = requested[field];
    if (want === undefined) continue;
    const has = ceiling[field];
    if (has > 0 && (want === 0 || want > has)) {
      const asked = want === 0 ? 'no limit (0)' : `${want}`;
      throw new VMError(`${tool}: cannot raise ${NAMES[field]} to ${asked}: this process has ${has}${UNITS[field]} of its ${NAMES[field]} budget left, and a process can only lower its limits`);
    }
    out[field] = want;
  }
  return out;
}

/** The tighter of two sets of limits, field by field (0 = no limit). */
export function tighter(a: Limits, b: Limits): Limits {
  const min = (x: number, y: number): number => (x === 0 ? y : y === 0 ? x : Math.min(x, y));
  return { alloc: min(a.alloc, b.alloc), steps: min(a.steps, b.steps), timeMs: min(a.timeMs, b.timeMs), allocFrom: a.allocFrom };
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
