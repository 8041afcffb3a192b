// What `turn inspect` shows of a stored run, as data: the run, its processes (from the latest
// snapshot: status, context tiers, memory, mailbox), its pending and unknown effects and its
// journal. The text view and `--json` are both rendered from this one structure, so they cannot
// disagree about what a run holds.
import { decodeSnapshot } from '../store/serialize.js';
import { spawnedAs } from './snapshot.js';
import type { JournalEntry, RunRecord, RunStore } from '../store/types.js';
import { render } from '../values/index.js';
import { bytesJson } from './index.js';
import { currentHash, decisions, getRun, type Decision } from './runs.js';
import { decisionKey, logicalKey, migrationKey } from './keys.js';
import { replyConfidence } from '../infer/confidence.js';
import type { InferReply } from '../infer/types.js';
import type { EffectGrant } from '../ports/host.js';
import { BLOCK_KIND, blocksOfStore, reassembledOrNote, type BlockLookup } from './request-blocks.js';

export interface JournalEntryView {
  seq: number;
  /** the logical step (`e3`, `c1`, `s1`...; docs/durability.md) */
  step: string | null;
  key: string | null;
  kind: string;
  name: string;
  pid: number;
  /** as stored; `decided` for an unknown step a person settled with --retry (it runs again on resume) */
  status: string;
  /** how a person settled this step (`turn resolve`), or null */
  decision: Decision | null;
  idempotent: boolean;
  /** what the intent asked; a model call's whole request (prompt and context tiers), reassembled from the run's blocks */
  request: unknown;
  /** the capability that allowed the effect (recorded in its intent since issue 26; null in older journals and for observations) */
  grant: EffectGrant | null;
  payload: unknown;
  /** an `infer` step's reply: its confidence and where it came from (agreement, logprobs, reported, unreported) */
  confidence?: { value: number; source: string; raw?: number; calibration?: string };
}

/** A snapshot's `after` (process_after's pids): whole numbers only, at most 256, else none (a store is outside data). */
function afterOf(x: unknown): { after?: number[] } {
  if (!Array.isArray(x) || x.length === 0 || x.length > 256 || !x.every((n) => Number.isInteger(n) && n > 0)) return {};
  return { after: x as number[] };
}

export interface ProcessInspection {
  pid: number;
  /** the name it gave itself (`process_name`), else the function at the bottom of its stack; null when it has none */
  name: string | null;
  /** the pids it depends on (`process_after`: a std/graph node's dependencies), when it declared any */
  after?: number[];
  status: string;
  waiting: string | null;
  effect: unknown;
  parent: number;
  frames: number;
  context: {
    limits: { working: number; episodic: number };
    P0: string[];
    P1: string[];
    P2: string[];
  };
  /** rendered values */
  memory: { key: string; value: string }[];
  mailbox: string[];
}

export interface RunInspection {
  run: Omit<RunRecord, 'result'> & { result: unknown; currentBytecode: string };
  /** from the latest snapshot (taken at `suspend;`); null when there is none */
  snapshot: { seq: number; processes: ProcessInspection[] } | { seq: number; error: string } | null;
  /** effects that started and have no recorded outcome */
  open: JournalEntryView[];
  /** the journal's last `tail` entries */
  journal: JournalEntryView[];
  journalLength: number;
}

function decoded(b: Uint8Array | null): unknown {
  if (b === null) return null;
  try {
    return bytesJson(b);
  } catch {
    return `${b.length} bytes`;
  }
}

function entryView(runId: string, e: JournalEntry, decided: Map<number, Decision>, blocks: BlockLookup): JournalEntryView {
  const decision = decided.get(e.seq) ?? null;
  const request = e.kind === 'infer' ? reassembledOrNote(decoded(e.request), blocks) : decoded(e.request);
  return {
    seq: e.seq,
    step: logicalKey(runId, e.idempotencyKey),
    key: e.idempotencyKey,
    kind: e.kind,
    name: e.name,
    pid: e.pid,
    status: decision === 'retry' && (e.status === 'unknown' || e.status === 'intent') ? 'decided' : e.status,
    decision,
    idempotent: e.idempotent,
    request,
    grant: grantOf(request),
    payload: decoded(e.payload),
    ...(e.kind === 'infer' && e.status === 'ok' ? confidenceOf(e.payload) : {}),
  };
}

/** The grant a journal entry's intent recorded (null: an observation, or a journal older than the field). */
export function journalGrant(e: Pick<JournalEntry, 'request'>): EffectGrant | null {
  return grantOf(decoded(e.request));
}

function grantOf(request: unknown): EffectGrant | null {
  const g = request !== null && typeof request === 'object' ? (request as { grant?: unknown }).grant : undefined;
  if (g === null || typeof g !== 'object') return null;
  const { capability, scope, from, identity } = g as Record<string, unknown>;
  if (typeof capability !== 'string' || typeof scope !== 'string' || typeof from !== 'string') return null;
  return { capability, scope, from, ...(typeof identity === 'string' ? { identity } : {}) };
}

function confidenceOf(payload: Uint8Array | null | undefined): { confidence?: { value: number; source: string; raw?: number; calibration?: string } } {
  if (!payload) return {};
  try {
    const reply = bytesJson(payload) as InferReply;
    return reply && typeof reply === 'object' ? { confidence: replyConfidence(reply) } : {};
  } catch {
    return {};
  }
}

/**
 * What the view needs of the journal. A store that can read a journal's tail (SQLite) gives the
 * last `tail` steps, the open ones and the decisions and migrations about them by key — never the
 * whole journal (issue 45: `turn inspect` of a 100,000-entry run read all of it to print 20);
 * another store is read whole.
 */
function journalView(store: RunStore, run: RunRecord, tail: number): { tail: JournalEntry[]; open: JournalEntry[]; decided: Map<number, Decision>; length: number; bytecode: string } {
  const id = run.id;
  if (!store.readJournalTail || !store.openJournal || !store.journalLength) {
    const entries = store.readJournal(id);
    return {
      // blocks are parts of model requests, shown inside them, not steps of their own
      tail: entries.filter((e) => e.kind !== BLOCK_KIND).slice(-tail),
      open: entries.filter((e) => e.status === 'intent' || e.status === 'unknown'),
      decided: decisions(entries),
      length: entries.length,
      bytecode: currentHash(run, entries),
    };
  }
  const last = store.readJournalTail(id, tail, BLOCK_KIND);
  const open = store.openJournal(id);
  // decisions (`d<seq>`) about the steps shown, and the migrations (`m1`, `m2` ...) in order
  const keyed: JournalEntry[] = [];
  for (const seq of new Set([...last, ...open].map((e) => e.seq))) {
    const d = store.findByIdempotencyKey(id, decisionKey(id, seq));
    if (d) keyed.push(d);
  }
  for (let n = 1; ; n++) {
    const m = store.findByIdempotencyKey(id, migrationKey(id, n));
    if (!m) break;
    keyed.push(m);
  }
  return { tail: last, open, decided: decisions(keyed), length: store.journalLength(id), bytecode: currentHash(run, keyed) };
}

export function inspectRun(store: RunStore, id: string, tail = 20): RunInspection {
  const run = getRun(store, id);
  const journal = journalView(store, run, tail);
  const decided = journal.decided;
  const blocks = blocksOfStore(store, id);
  const snap = store.latestSnapshot(id);
  let snapshot: RunInspection['snapshot'] = null;
  if (snap) {
    try {
      const data = decodeSnapshot(snap.bytes);
      snapshot = {
        seq: snap.seq,
        processes: data.processes.map((p) => {
          const st = p.state as Record<string, unknown>;
          const bottom = p.values.frame0 as { name?: unknown } | null | undefined;
          // its own name, else the function it runs, else (finished: no frames) the one it was spawned to run
          const label = typeof st.label === 'string' ? st.label : typeof bottom?.name === 'string' ? bottom.name : spawnedAs(st.fn);
          return {
            pid: p.pid,
            name: label !== null && label.length <= 80 ? label : null,
            ...afterOf(st.after),
            status: String(st.status),
            waiting: typeof st.waiting === 'string' ? st.waiting : null,
            effect: st.effect ?? null,
            parent: Number(st.parent),
            frames: Array.isArray(st.frames) ? st.frames.length : 0,
            context: { limits: p.context.limits, P0: p.context.system, P1: p.context.working, P2: p.context.episodic },
            memory: [...p.memory].map(([key, v]) => ({ key, value: render(v) })),
            mailbox: p.mailbox.map((m) => render(m)),
          };
        }),
      };
    } catch (e) {
      snapshot = { seq: snap.seq, error: (e as Error).message };
    }
  }
  return {
    run: { ...run, result: decoded(run.result), currentBytecode: journal.bytecode },
    snapshot,
    open: journal.open.map((e) => entryView(id, e, decided, blocks)),
    journal: journal.tail.map((e) => entryView(id, e, decided, blocks)),
    journalLength: journal.length,
  };
}
