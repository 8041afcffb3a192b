// Native tool calls in the VM (issue 42): `infer T with { tools: [f, g] }`. The infer is a loop of
// model rounds, each its own infer effect (journaled like any: a durable replay reuses its reply).
// A reply that calls tools does not resume the inferring process: each call, checked against its
// tool's schema, runs as a child process of it (the panel shows them, the run's grants and budgets
// bind them as they bind any process), and once every child has ended their results go back to
// the model in the next round. A call the model got wrong (no such tool, bad arguments, a tool that
// failed or was refused) is an error result the model sees, never a crash of the run.
import type { Bundle } from '../compile/bundle.js';
import type { ToolParam } from '../compile/tool-signature.js';
import { withoutPredicates } from '../infer/checks.js';
import type { EventLog } from '../events/index.js';
import type { InferCall, InferToolsOutcome } from '../infer/driver.js';
import { fromReply } from '../infer/reply-value.js';
import type { JsonSchema } from '../infer/schema.js';
import { bounded, checkCall, checkOffers, keptCall, resultText, schemaProblem, ToolOfferError } from '../infer/tools.js';
import type { ToolCallRequest, ToolOffer, ToolResult, ToolRound } from '../infer/types.js';
import type { PendingEffect } from '../ports/effect.js';
import { ClosureVal, containsIdentity, render, toJson, unwrap, type Value } from '../values/index.js';
import { DONE, type Process } from './process.js';

/** What an offered tool runs: its closure and how the model's arguments become its parameters. */
interface ToolEntry {
  offer: ToolOffer;
  closure: ClosureVal;
  params: ToolParam[];
  /** the closure takes `arguments_given` last (an absorbed operation): which parameters the model gave */
  countsGiven: boolean;
}

export interface ToolSet {
  offers: ToolOffer[];
  byName: Map<string, ToolEntry>;
}

/** The tools of `value` (the `tools:` option), or a ToolOfferError saying which cannot be offered and why. */
export function toolSetOf(value: Value, bundle: Bundle): ToolSet {
  const list = unwrap(value);
  if (!Array.isArray(list)) throw new ToolOfferError('infer option tools needs a List of functions');
  const byName = new Map<string, ToolEntry>();
  const offers: ToolOffer[] = [];
  list.forEach((item, i) => {
    const c = unwrap(item);
    if (!(c instanceof ClosureVal)) throw new ToolOfferError(`infer option tools: item ${i + 1} is ${describe(c)}, not a function the model could call`);
    const sig = bundle.toolSignature?.(c.proto);
    if (!sig) throw new ToolOfferError(`infer option tools: item ${i + 1} (${c.name}) is a built-in, not a Turn function: wrap it in one`);
    if (!sig.ok) throw new ToolOfferError(`infer option tools: the tool ${c.name}: ${sig.message}`);
    const parameters = withoutPredicates(sig.parameters);
    const problem = schemaProblem(sig.parameters);
    if (problem) throw new ToolOfferError(`infer option tools: the parameters of ${c.name} make no valid schema: ${problem}`);
    const offer: ToolOffer = { name: c.name, description: sig.description ?? `the Turn function ${c.name}(${sig.params.map((p) => p.name).join(', ')})`, parameters };
    offers.push(offer);
    byName.set(c.name, { offer: { ...offer, parameters: sig.parameters }, closure: c, params: sig.params, countsGiven: bundle.functions[c.proto].required !== undefined });
  });
  checkOffers(offers);
  return { offers, byName };
}

function describe(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a List';
  if (v instanceof Map) return 'a Map';
  return `a ${typeof v === 'string' ? 'Str' : typeof v === 'number' ? 'Num' : typeof v === 'boolean' ? 'Bool' : 'value'}`;
}

/** One inferring process's loop: its tools, the rounds so far, and the round whose calls are running. */
export interface ToolLoop {
  set: ToolSet;
  /** the infer effect as first made: each round's request is it with the rounds so far */
  effect: Extract<PendingEffect, { kind: 'infer' }>;
  rounds: ToolRound[];
  /** the event id of the model round whose calls are running (i1, i2, ...) */
  inferId: string;
  current: { text?: string; calls: ToolCallRequest[]; results: (ToolResult | undefined)[]; running: number } | null;
}

/** What the loop needs of the VM. */
export interface ToolLoopVM {
  readonly bundle: Bundle;
  readonly events: EventLog;
  /** starts `closure(args)` as a child of `parent` (throws a VMError for arguments its parameters refuse) */
  startTool(parent: Process, closure: ClosureVal, args: Value[]): Process;
  /** `p` waits on `effect` (a model round) again */
  askAgain(p: Process, effect: PendingEffect): void;
}

export class ToolLoops {
  /** by inferring pid */
  private readonly loops = new Map<number, ToolLoop>();
  /** a running call's child pid → its inferring pid, its loop and round (a later infer of the same process has others), its place in the round */
  private readonly calls = new Map<number, { parent: number; loop: ToolLoop; round: NonNullable<ToolLoop['current']>; index: number }>();

  constructor(private readonly vm: ToolLoopVM) {}

  /** The infer `effect` of `p` offers `set`: the request carries the offers. */
  begin(p: Process, effect: Extract<PendingEffect, { kind: 'infer' }>, set: ToolSet): void {
    this.loops.set(p.id, { set, effect, rounds: [], inferId: '', current: null });
  }

  /** The infer of `p` ended (a value, an error): its loop is let go. */
  end(p: Process): void {
    this.loops.delete(p.id);
  }

  /**
   * `p` ended (done, failed, cancelled) with a round of calls still running: they are cancelled
   * (nobody waits for their results) and its loop is let go. Returns the pids to cancel.
   */
  abandoned(p: Process): number[] {
    const loop = this.loops.get(p.id);
    if (!loop) return [];
    this.loops.delete(p.id);
    const running: number[] = [];
    for (const [child, at] of this.calls) if (at.loop === loop) running.push(child);
    return running;
  }

  /** A model round of `p` asked for `outcome.calls`: each runs (or is answered with an error) and the round waits for them. */
  round(p: Process, effect: PendingEffect, outcome: InferToolsOutcome, inferId: string): void {
    const loop = this.loops.get(p.id);
    if (!loop) throw new Error(`process #${p.id} has no tool loop`);
    // checked as the model sent them, kept bounded (keptCall) for the rounds, the journal and the events
    const sent = outcome.calls;
    const calls = sent.map(keptCall);
    const current: NonNullable<ToolLoop['current']> = { ...(outcome.text ? { text: outcome.text } : {}), calls, results: new Array<ToolResult | undefined>(calls.length).fill(undefined), running: 0 };
    loop.current = current;
    loop.inferId = inferId;
    p.effect = effect; // the process still waits on this infer (a snapshot is refused, a cancel reaches it)
    const offers = new Map([...loop.set.byName].map(([n, e]) => [n, e.offer]));
    calls.forEach((call, index) => {
      const checked = checkCall(sent[index], offers);
      const emitStart = (child: number | null) =>
        this.vm.events.emit({ kind: 'infer.tool', id: inferId, pid: p.id, call: call.id, name: String(call.name).slice(0, 80), state: 'start', child, arguments: call.argumentsText ?? bounded(JSON.stringify(call.arguments), 1024) });
      if (!checked.ok) {
        emitStart(null);
        this.settle(p, loop, index, { ...checked.result, id: call.id, name: call.name }, inferId, null);
        return;
      }
      const entry = loop.set.byName.get(checked.offer.name)!;
      const args: Value[] = entry.params.map((param) => fromReply(checked.args[param.name] ?? null, param.schema, entry.offer.parameters));
      if (entry.countsGiven) args.push(entry.params.map((param) => Object.hasOwn(checked.args, param.name)));
      let child: Process;
      try {
        child = this.vm.startTool(p, entry.closure, args);
      } catch (e) {
        emitStart(null);
        this.settle(p, loop, index, { id: call.id, name: call.name, content: `the call could not start: ${e instanceof Error ? e.message : String(e)}`, isError: true }, inferId, null);
        return;
      }
      emitStart(child.id);
      this.calls.set(child.id, { parent: p.id, loop, round: current, index });
      current.running++;
    });
    this.maybeNext(p, loop);
  }

  /** Whether `p` runs a tool call (so its end is the loop's business). */
  runsCall(p: Process): boolean {
    return this.calls.size > 0 && this.calls.has(p.id);
  }

  /** A call's process ended: its value (or its failure) is the call's result. */
  callEnded(child: Process, parentOf: (pid: number) => Process | undefined): void {
    const at = this.calls.get(child.id);
    if (!at) return;
    this.calls.delete(child.id);
    const p = parentOf(at.parent);
    const loop = at.loop;
    // the inferring process was cancelled or failed meanwhile, or has gone on to another infer: nobody waits for this result
    if (!p || this.loops.get(at.parent) !== loop || loop.current !== at.round || p.effect === null) return;
    const call = loop.current.calls[at.index];
    let result: ToolResult;
    if (child.status === DONE) {
      result = containsIdentity(child.result)
        ? { id: call.id, name: call.name, content: 'the tool returned an identity handle, which is never sent to a model', isError: true }
        : { id: call.id, name: call.name, content: resultText(toJson(child.result)) };
    } else {
      result = { id: call.id, name: call.name, content: bounded(`the tool failed: ${failureMessage(child.failure?.value ?? null)}`), isError: true };
    }
    loop.current.running--;
    this.settle(p, loop, at.index, result, loop.inferId, child.id);
    this.maybeNext(p, loop);
  }

  private settle(p: Process, loop: ToolLoop, index: number, result: ToolResult, inferId: string, child: number | null): void {
    loop.current!.results[index] = result;
    this.vm.events.emit({ kind: 'infer.tool', id: inferId, pid: p.id, call: result.id, name: String(result.name).slice(0, 80), state: result.isError ? 'failed' : 'done', child, result: bounded(result.content, 1024) });
  }

  /** Every call of the round has its result: the model is asked again with the round added. */
  private maybeNext(p: Process, loop: ToolLoop): void {
    const current = loop.current!;
    if (current.running > 0 || current.results.some((r) => r === undefined)) return;
    loop.rounds.push({ ...(current.text ? { text: current.text } : {}), calls: current.calls, results: current.results as ToolResult[] });
    loop.current = null;
    const request: InferCall = { ...loop.effect.request, toolRounds: loop.rounds.slice() };
    this.vm.askAgain(p, { kind: 'infer', desc: loop.effect.desc, request });
  }
}

/** A failed call's message: a Turn error map's `message`, else the value as text. */
function failureMessage(v: Value): string {
  if (v instanceof Map) {
    const m = v.get('message');
    if (typeof m === 'string') return m;
  }
  return render(v, false, 2000);
}

export type { JsonSchema };
