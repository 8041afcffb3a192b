// The run panel's updates proportional to the change (issue 44). The extension host keeps the run's
// view and, for each update, sends the webview only what changed since the last message
// (`RunDeltaProducer`); the webview keeps its copy and applies them (`applyRunDelta`). The whole
// view goes over only when a webview (re)opens, a new run starts, or the webview asks (`resync`).
//
// The producer remembers, per row, a signature of what it last sent (the row's JSON), not the row:
// the runner mutates its view in place, so a kept reference would always look unchanged. A row is
// sent when its signature differs; a streaming reply sends only the text that came since. So a
// message's size follows the change, while the producer's work per update is one pass over the rows.
//
// No `vscode` import and no DOM: both sides bundle this file, and test/extension/ runs it in Node.
import type { ActorPatch, ActorView, AttemptPatch, HostMessage, InferAttemptView, InferPatch, InferView, RunDelta, RunView, StreamedPatch, TimelineItem } from './panel.js';
import { isActorView, PROTOCOL_VERSION } from './panel.js';

// `messages` (the message edges, at most MAX_MESSAGE_PAIRS rows) goes whole when a count changes: small, and bounded
const SCALARS = ['file', 'status', 'model', 'result', 'error', 'stored', 'tokens', 'messages'] as const;
type Scalar = (typeof SCALARS)[number];

/** A row's fields as last sent, each as its JSON. */
type Sigs = Map<string, string>;

const sigsOf = (row: object, except?: string): Sigs => {
  const m: Sigs = new Map();
  for (const [k, v] of Object.entries(row)) if (k !== except) m.set(k, JSON.stringify(v ?? null));
  return m;
};

/** The fields of `row` whose JSON differs from `sent` (which is brought up to date). */
function changedFields(sent: Sigs, row: object, except?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === except) continue;
    const sig = JSON.stringify(v ?? null);
    if (sent.get(k) === sig) continue;
    sent.set(k, sig);
    out[k] = v ?? null;
  }
  return out;
}

/** What was last sent of one attempt: its fields but the streamed reply, and the streamed reply. */
interface SentAttempt {
  /** the fields that change once an attempt was asked (the reply, its checks, the stream) */
  moving: string;
  fields: Sigs;
  streamedText: string | null;
  streamedRest: string;
}

interface SentInfer {
  head: string;
  attempts: SentAttempt[];
}

/** the streamed reply but its text (absent and null differ: a reply that came whole sets it to null) */
const streamedRest = (a: InferAttemptView): string => (a.streamed ? JSON.stringify({ ...a.streamed, text: undefined }) : a.streamed === null ? 'null' : '');
const inferHead = (i: InferView): string => JSON.stringify([i.pid, i.type, i.site, i.state]);
/**
 * A timeline item's signature: the fields an item changes after it was added (a request answered,
 * a streaming bar growing) with its identity; the rest of an item never changes once added. Cheap,
 * as every update compares every item.
 */
const itemSig = (t: TimelineItem): string => `${t.seq}|${t.kind}|${t.pid}|${t.state}|${t.ms}|${t.summary}|${t.phases ? JSON.stringify(t.phases) : ''}|${t.site ? `${t.site.path}:${t.site.line}` : ''}`;
/**
 * What changes of an attempt after it was asked: its prompt, feedback and schema are fixed when the
 * request is made (runner.ts), so an update compares this and not the whole attempt (its schema and
 * prompt are most of its size).
 */
const movingSig = (a: InferAttemptView): string => JSON.stringify([a.raw, a.repairs, a.errors, a.valid, a.confidence, a.calibration ?? null, a.streamed === undefined ? 'absent' : a.streamed]);
const sentAttempt = (a: InferAttemptView): SentAttempt => ({ moving: movingSig(a), fields: sigsOf(a, 'streamed'), streamedText: a.streamed?.text ?? null, streamedRest: streamedRest(a) });

export class RunDeltaProducer {
  private runId: number | null = null;
  private n = 0;
  private scalars = new Map<Scalar, string>();
  private outputLength = 0;
  private actorSent = new Map<number, Sigs>();
  /** each actor's whole JSON as last sent: an unchanged actor costs one comparison, not one per field */
  private actorWhole = new Map<number, string>();
  /**
   * each actor's row object as last compared: the runner builds a new row when an actor changes
   * (runner.ts), so the same object is the same row and costs no serializing (at 1,000 actors, most
   * rows of an update are unchanged). Rows are never mutated once published.
   */
  private actorSeen = new Map<number, ActorView>();
  private actorOrder: number[] = [];
  private inferSent = new Map<string, SentInfer>();
  private inferOrder: string[] = [];
  private timelineSigs: string[] = [];

  /** The whole view, and it becomes the base of the next delta (a webview opened, or asked again). */
  full(view: RunView): HostMessage {
    this.runId = view.runId;
    this.n = 0;
    this.scalars = new Map(SCALARS.map((k) => [k, JSON.stringify(view[k] ?? null)]));
    this.outputLength = view.output.length;
    this.actorSent = new Map(view.actors.map((a) => [a.pid, sigsOf(a)]));
    this.actorWhole = new Map(view.actors.map((a) => [a.pid, JSON.stringify(a)]));
    this.actorSeen = new Map(view.actors.map((a) => [a.pid, a]));
    this.actorOrder = view.actors.map((a) => a.pid);
    this.inferSent = new Map(view.infers.map((i) => [i.id, { head: inferHead(i), attempts: i.attempts.map(sentAttempt) }]));
    this.inferOrder = view.infers.map((i) => i.id);
    this.timelineSigs = view.timeline.map(itemSig);
    return { type: 'run', v: PROTOCOL_VERSION, run: view };
  }

  /**
   * The message that brings a webview holding the last sent state to `view`: a delta, the whole
   * view (another run, or a change a delta does not describe: printed lines, events or attempts
   * taken back), or null when nothing changed.
   */
  next(view: RunView): HostMessage | null {
    if (this.runId !== view.runId || view.output.length < this.outputLength || view.timeline.length < this.timelineSigs.length) return this.full(view);
    const d: RunDelta = { runId: view.runId, n: this.n + 1 };

    const set: Record<string, unknown> = {};
    for (const k of SCALARS) {
      const sig = JSON.stringify(view[k] ?? null);
      if (sig === this.scalars.get(k)) continue;
      this.scalars.set(k, sig);
      set[k] = view[k] ?? null;
    }
    if (Object.keys(set).length > 0) d.set = set;

    if (view.output.length > this.outputLength) {
      d.output = { from: this.outputLength, lines: view.output.slice(this.outputLength) };
      this.outputLength = view.output.length;
    }

    const actors: ActorPatch[] = [];
    for (const a of view.actors) {
      if (this.actorSeen.get(a.pid) === a) continue;
      this.actorSeen.set(a.pid, a);
      const whole = JSON.stringify(a);
      if (this.actorWhole.get(a.pid) === whole) continue;
      this.actorWhole.set(a.pid, whole);
      const sent = this.actorSent.get(a.pid);
      if (!sent) {
        this.actorSent.set(a.pid, sigsOf(a));
        actors.push(a);
        continue;
      }
      const fields = changedFields(sent, a);
      if (Object.keys(fields).length > 0) actors.push({ ...fields, pid: a.pid });
    }
    if (actors.length > 0) d.actors = actors;
    const actorOrder = view.actors.map((a) => a.pid);
    const pids = new Set(actorOrder);
    for (const pid of [...this.actorSent.keys()]) {
      if (pids.has(pid)) continue;
      this.actorSent.delete(pid);
      this.actorWhole.delete(pid);
      this.actorSeen.delete(pid);
    }
    if (!appendedOrder(this.actorOrder, actorOrder)) d.actorOrder = actorOrder;
    this.actorOrder = actorOrder;

    const infers: InferPatch[] = [];
    for (const i of view.infers) {
      const patch = this.inferPatch(i);
      if (patch === 'full') return this.full(view);
      if (patch) infers.push(patch);
    }
    if (infers.length > 0) d.infers = infers;
    const inferOrder = view.infers.map((i) => i.id);
    const ids = new Set(inferOrder);
    for (const id of [...this.inferSent.keys()]) if (!ids.has(id)) this.inferSent.delete(id);
    if (!appendedOrder(this.inferOrder, inferOrder)) d.inferOrder = inferOrder;
    this.inferOrder = inferOrder;

    const timelineSet: { i: number; item: TimelineItem }[] = [];
    const before = this.timelineSigs.length;
    for (let i = 0; i < before; i++) {
      const sig = itemSig(view.timeline[i]);
      if (sig === this.timelineSigs[i]) continue;
      this.timelineSigs[i] = sig;
      timelineSet.push({ i, item: view.timeline[i] });
    }
    if (timelineSet.length > 0) d.timelineSet = timelineSet;
    if (view.timeline.length > before) {
      const items = view.timeline.slice(before);
      for (const t of items) this.timelineSigs.push(itemSig(t));
      d.timeline = { from: before, items };
    }

    if (Object.keys(d).length === 2) return null; // runId and n: nothing changed
    this.n = d.n;
    return { type: 'runDelta', v: PROTOCOL_VERSION, delta: d };
  }

  /** The patch of one inference, or null when nothing of it changed since it was last sent. */
  private inferPatch(i: InferView): InferPatch | 'full' | null {
    const head = inferHead(i);
    let sent = this.inferSent.get(i.id);
    // attempts are only ever added: fewer than were sent is a view a delta does not describe
    if (sent && sent.attempts.length > i.attempts.length) return 'full';
    const headChanged = sent?.head !== head;
    if (!sent) {
      sent = { head, attempts: [] };
      this.inferSent.set(i.id, sent);
    }
    sent.head = head;
    const attempts: AttemptPatch[] = [];
    i.attempts.forEach((a, k) => {
      const was = sent.attempts[k];
      if (!was) {
        sent.attempts[k] = sentAttempt(a);
        attempts.push({ i: k, attempt: a });
        return;
      }
      const moving = movingSig(a);
      if (moving === was.moving) return;
      was.moving = moving;
      const patch: AttemptPatch = { i: k };
      const fields = changedFields(was.fields, a, 'streamed');
      if (Object.keys(fields).length > 0) patch.fields = fields;
      const text = a.streamed?.text ?? null;
      const rest = streamedRest(a);
      if (text !== was.streamedText || rest !== was.streamedRest) {
        if (!a.streamed) patch.streamed = null;
        else {
          const { text: now, ...numbers } = a.streamed;
          const grows = was.streamedText !== null && now.startsWith(was.streamedText);
          patch.streamed = grows ? { ...numbers, append: now.slice(was.streamedText!.length) } : { ...numbers, text: now };
        }
        was.streamedText = text;
        was.streamedRest = rest;
      }
      if (patch.fields || patch.streamed !== undefined) attempts.push(patch);
    });
    if (!headChanged && attempts.length === 0) return null;
    return { id: i.id, pid: i.pid, type: i.type, site: i.site, state: i.state, attempts };
  }
}

/** `now` is `was` (less any removed) with new keys after: where the consumer puts new rows anyway. */
function appendedOrder<K>(was: K[], now: K[]): boolean {
  const nowSet = new Set(now);
  const kept = was.filter((k) => nowSet.has(k));
  for (let i = 0; i < kept.length; i++) if (kept[i] !== now[i]) return false;
  return true;
}

/**
 * Applies a delta to the webview's copy of the run; returns a new view (new arrays only where they
 * changed, so a part whose array is the same object has nothing new to draw), or null when the
 * delta does not follow `view` (another run, a delta missed, a patch for a row it does not have):
 * the webview then asks for the whole view again.
 */
export function applyRunDelta(view: RunView, d: RunDelta, lastN: number): RunView | null {
  if (view.runId !== d.runId || d.n !== lastN + 1) return null;
  if (d.output && d.output.from !== view.output.length) return null;
  if (d.timeline && d.timeline.from !== view.timeline.length) return null;
  const next: RunView = { ...view };
  if (d.set) Object.assign(next, d.set);
  if (d.output) next.output = view.output.concat(d.output.lines);

  if (d.actors || d.actorOrder) {
    const byPid = new Map(view.actors.map((a) => [a.pid, a]));
    const order = view.actors.map((a) => a.pid);
    for (const p of d.actors ?? []) {
      const was = byPid.get(p.pid);
      const now = was ? { ...was, ...p } : p;
      if (!isActorView(now)) return null;
      if (!was) order.push(p.pid);
      byPid.set(p.pid, now);
    }
    next.actors = (d.actorOrder ?? order).flatMap((pid) => byPid.get(pid) ?? []);
  }

  if (d.infers || d.inferOrder) {
    const byId = new Map(view.infers.map((i) => [i.id, i]));
    const order = view.infers.map((i) => i.id);
    for (const p of d.infers ?? []) {
      const was = byId.get(p.id);
      if (!was) order.push(p.id);
      const attempts = was ? was.attempts.slice() : [];
      for (const a of p.attempts) {
        if ('attempt' in a) {
          if (a.i > attempts.length) return null;
          attempts[a.i] = a.attempt;
          continue;
        }
        const old = attempts[a.i];
        if (!old) return null;
        attempts[a.i] = { ...old, ...a.fields, ...(a.streamed !== undefined ? { streamed: streamedAfter(old, a.streamed) } : {}) };
      }
      byId.set(p.id, { id: p.id, pid: p.pid, type: p.type, site: p.site, state: p.state, attempts });
    }
    next.infers = (d.inferOrder ?? order).flatMap((id) => byId.get(id) ?? []);
  }

  if (d.timelineSet || d.timeline) {
    const timeline = view.timeline.slice();
    for (const { i, item } of d.timelineSet ?? []) {
      if (i >= timeline.length) return null;
      timeline[i] = item;
    }
    if (d.timeline) for (const t of d.timeline.items) timeline.push(t);
    next.timeline = timeline;
  }
  return next;
}

function streamedAfter(a: InferAttemptView, s: StreamedPatch | null): InferAttemptView['streamed'] {
  if (s === null) return null;
  const { append, text, ...numbers } = s;
  return { text: text ?? (a.streamed?.text ?? '') + (append ?? ''), ...numbers };
}
