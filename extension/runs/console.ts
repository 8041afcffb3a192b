// The Runs view as a console (issue 44), as plain data (no `vscode` import; tested in plain Node):
// what each row says in its columns (status, started, duration, tokens, cost, result), the forks
// nested under the run they were forked from, the runs that wait on a person first, and the filter
// the view's search box applies.
//
// Why a tree and not a webview table: the rows keep VS Code's own inline actions, context menus,
// keyboard navigation, screen-reader labels and theme, which the Runs view's commands (resume,
// settle, migrate, delete) are built on; a webview would have to redo all of them. The columns are
// the row's description, in a fixed order, and the sort and filter are commands on the view's title.
//
// A resume continues the same stored run (the same id and journal), so it is one row; a fork
// (what-if, runtime/durable/fork.ts) is a new run whose `meta.forkOf.runId` names its origin, and
// it is drawn as that run's child. A fork of a fork nests again; a fork whose origin was deleted
// is a root.
import * as path from 'node:path';
import { bytesJson, money, tokenSummary, type JournalEntry, type PriceTable, type RunRecord, type RunStore } from '../../runtime/index.js';
import { listRunItems, stateText, type RunItem, type RunState } from './model.js';

/** What the console adds to a run's row: its tokens and cost, its duration, and its origin. */
export interface RunFacts {
  /** the run it was forked from (meta.forkOf.runId), or null */
  forkOf: { runId: string; step: number } | null;
  /** model calls journaled with their reply, and the tokens their replies reported */
  tokens: { calls: number; input: number; output: number; cached: number };
  /** what they cost under the price table (null: no table, or no price for the run's model) */
  cost: { total: number; currency: string } | null;
}

const whole = (x: unknown): number => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : 0);

/**
 * A stored run's facts from its record and journal. The journal is outside data: only the reply's
 * `usage` numbers are read, each a whole number or 0. The model is the one the run was started
 * with (`meta.options.model`, Turn's name, as the price table keys it).
 */
export function runFacts(run: Pick<RunRecord, 'meta'>, entries: readonly JournalEntry[], table?: PriceTable): RunFacts {
  const tokens = { calls: 0, input: 0, output: 0, cached: 0 };
  for (const e of entries) {
    if (e.kind !== 'infer' || e.status !== 'ok') continue;
    tokens.calls++;
    let usage: unknown;
    try {
      usage = (bytesJson(e.payload) as { usage?: unknown } | null)?.usage;
    } catch {
      continue;
    }
    if (usage === null || typeof usage !== 'object') continue;
    const u = usage as Record<string, unknown>;
    tokens.input += whole(u.inputTokens);
    tokens.output += whole(u.outputTokens);
    tokens.cached += whole(u.cachedTokens);
  }
  const options = run.meta.options as { model?: unknown } | undefined;
  const model = typeof options?.model === 'string' ? options.model : '';
  let cost: RunFacts['cost'] = null;
  if (table && model !== '' && tokens.calls > 0) {
    const s = tokenSummary([{ model, calls: tokens.calls, retries: 0, failed: 0, inputTokens: tokens.input, cachedTokens: tokens.cached, outputTokens: tokens.output, unreported: 0 }], table);
    if (s.cost && s.cost.unpriced.length === 0) cost = { total: s.cost.total, currency: s.cost.currency };
  }
  const f = run.meta.forkOf as { runId?: unknown; step?: unknown } | undefined;
  const forkOf = f && typeof f.runId === 'string' ? { runId: f.runId, step: whole(f.step) } : null;
  return { forkOf, tokens, cost };
}

/** A run as the console lists it. */
export type ConsoleRun = RunItem & RunFacts;

/**
 * Facts already read, by run: a run that does not run keeps its journal's model calls until its
 * status changes (a store bumps `updatedAt` on every status change), so a refresh of 45 runs reads
 * the journals of the ones that changed only.
 */
export class FactsCache {
  private readonly facts = new Map<string, { key: string; facts: RunFacts }>();

  get(store: RunStore, run: RunRecord, table: PriceTable | undefined): RunFacts {
    const key = `${run.status}:${run.updatedAt}:${table?.source ?? ''}`;
    const had = this.facts.get(run.id);
    if (had && had.key === key && run.status !== 'running') return had.facts;
    const facts = runFacts(run, store.readJournal(run.id), table);
    this.facts.set(run.id, { key, facts });
    return facts;
  }

  /** Forgets the runs no longer listed. */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of this.facts.keys()) if (!ids.has(id)) this.facts.delete(id);
  }
}

/** The runs of a store with their console facts (`live`: the ids this editor runs now). */
export function listConsoleRuns(store: RunStore, options: { live?: ReadonlySet<string>; table?: PriceTable; cache?: FactsCache } = {}): ConsoleRun[] {
  const records = new Map(store.listRuns().map((r) => [r.id, r]));
  const cache = options.cache ?? new FactsCache();
  const out = listRunItems(store, options.live).map((item): ConsoleRun => {
    const record = records.get(item.id);
    const facts = record ? cache.get(store, record, options.table) : { forkOf: null, tokens: { calls: 0, input: 0, output: 0, cached: 0 }, cost: null };
    return { ...item, ...facts };
  });
  cache.keepOnly(new Set(records.keys()));
  return out;
}

/** One row of the console: a run and the forks made from it. */
export interface ConsoleRow {
  run: ConsoleRun;
  children: ConsoleRow[];
}

export type SortKey = 'started' | 'duration' | 'tokens' | 'cost';
export const SORT_KEYS: readonly SortKey[] = ['started', 'duration', 'tokens', 'cost'];

/** How long a run ran: to its last change, or to now while it runs. */
export function durationMs(run: Pick<RunItem, 'state' | 'createdAt' | 'updatedAt'>, now: number): number {
  return Math.max(0, (run.state === 'running' ? now : run.updatedAt) - run.createdAt);
}

/** Runs that wait on a person come first: an unknown outcome to settle, then suspended or interrupted ones to resume. */
const URGENCY: Record<RunState, number> = { waiting: 0, suspended: 1, interrupted: 1, running: 2, failed: 3, done: 3, cancelled: 3 };

function compare(key: SortKey, now: number): (a: ConsoleRow, b: ConsoleRow) => number {
  const value = (r: ConsoleRun): number =>
    key === 'duration' ? durationMs(r, now) : key === 'tokens' ? r.tokens.input + r.tokens.output : key === 'cost' ? (r.cost?.total ?? -1) : r.createdAt;
  return (a, b) => URGENCY[a.run.state] - URGENCY[b.run.state] || value(b.run) - value(a.run) || (a.run.id < b.run.id ? -1 : a.run.id > b.run.id ? 1 : 0);
}

/** The filter the view's search box holds, parsed: `status:failed` (or `is:failed`) words and plain words, all of which must match. */
export interface RunFilter {
  states: RunState[];
  words: string[];
}

const STATES: readonly RunState[] = ['running', 'interrupted', 'suspended', 'waiting', 'done', 'failed', 'cancelled'];
/** the longest filter text read (a search box, not a document) */
const MAX_FILTER = 200;

export function parseFilter(text: string): RunFilter {
  const states: RunState[] = [];
  const words: string[] = [];
  for (const raw of text.slice(0, MAX_FILTER).toLowerCase().split(/\s+/)) {
    if (raw === '') continue;
    const m = /^(?:status|is):(.*)$/.exec(raw);
    const state = m && STATES.find((s) => s === m[1]);
    if (state) states.push(state);
    else words.push(raw);
  }
  return { states, words };
}

/** Whether a run matches the filter: its state is one of the states named (if any), and every word is in its file, id, status or result. */
export function matches(run: ConsoleRun, filter: RunFilter): boolean {
  if (filter.states.length > 0 && !filter.states.includes(run.state)) return false;
  const text = `${path.basename(run.entry)} ${run.entry} ${run.id} ${stateText(run.state)} ${run.outcome ?? ''}`.toLowerCase();
  return filter.words.every((w) => text.includes(w));
}

/**
 * The console's rows: forks under their origin, sorted at every level (waiting runs first, then by
 * `key`, largest or newest first), filtered (a run shows when it matches or a fork under it does,
 * so a matching fork is seen where it belongs).
 */
export function consoleRows(runs: readonly ConsoleRun[], options: { filter?: RunFilter; sort?: SortKey; now?: number } = {}): ConsoleRow[] {
  const now = options.now ?? Date.now();
  const byId = new Map(runs.map((r) => [r.id, r]));
  const rows = new Map(runs.map((r): [string, ConsoleRow] => [r.id, { run: r, children: [] }]));
  const roots: ConsoleRow[] = [];
  for (const r of runs) {
    const row = rows.get(r.id)!;
    const parent = r.forkOf ? rows.get(r.forkOf.runId) : undefined;
    // a store is outside data: a fork chain that loops back on itself is cut, and its runs are roots
    if (parent && !loops(r, byId)) parent.children.push(row);
    else roots.push(row);
  }
  const filter = options.filter;
  const order = compare(options.sort ?? 'started', now);
  const keep = (list: ConsoleRow[]): ConsoleRow[] =>
    list
      .map((row) => ({ run: row.run, children: keep(row.children) }))
      .filter((row) => !filter || row.children.length > 0 || matches(row.run, filter))
      .sort(order);
  return keep(roots);
}

/** Whether following `forkOf` from `run` comes back to it (a damaged or hostile store). */
function loops(run: ConsoleRun, byId: ReadonlyMap<string, ConsoleRun>): boolean {
  const seen = new Set<string>([run.id]);
  for (let r = run.forkOf ? byId.get(run.forkOf.runId) : undefined; r; r = r.forkOf ? byId.get(r.forkOf.runId) : undefined) {
    if (seen.has(r.id)) return true;
    seen.add(r.id);
  }
  return false;
}

/** "850 ms", "12 s", "3 min 5 s", "2 h 4 min". */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

const compact = (n: number): string => (n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k` : `${(n / 1_000_000).toFixed(1)}M`);

/** The longest result shown in a row (the tooltip has the rest). */
const RESULT_CHARS = 60;

/**
 * The row's columns as one line, always in the same order so they line up by eye: status,
 * started, duration, tokens, cost, result. A column with nothing to say is left out.
 */
export function columnsText(run: ConsoleRun, now: number, started: (ms: number) => string): string {
  const cols = [stateText(run.state), started(run.createdAt), durationText(durationMs(run, now))];
  const tokens = run.tokens.input + run.tokens.output;
  // a model that reports no usage (the mock, some local servers): the calls, not "0 tokens"
  if (tokens > 0) cols.push(`${compact(tokens)} tokens`);
  else if (run.tokens.calls > 0) cols.push(`${run.tokens.calls} model call${run.tokens.calls === 1 ? '' : 's'}`);
  if (run.cost) cols.push(money(run.cost.total, run.cost.currency));
  if (run.forkOf) cols.push(`fork at step ${run.forkOf.step}`);
  if (run.outcome !== null) {
    const one = run.outcome.replace(/\s+/g, ' ');
    cols.push(`${run.state === 'done' ? '→' : '✗'} ${one.length > RESULT_CHARS ? `${one.slice(0, RESULT_CHARS - 1)}…` : one}`);
  }
  return cols.join(' · ');
}

/** The number of runs the rows hold, forks included (the view's "12 of 45" when filtered). */
export function countRows(rows: readonly ConsoleRow[]): number {
  return rows.reduce((n, r) => n + 1 + countRows(r.children), 0);
}
