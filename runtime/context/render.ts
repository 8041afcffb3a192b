// Byte-stable rendering of context entries and prompts. An entry's text is fixed when it is
// added (strings as they are; other values as canonical text with map keys sorted and no
// timestamps), and a prompt is its entries in tier order, so the bytes of an unchanged prefix
// never change: a provider's prompt cache (or a KV cache) can reuse them.
import { sha256Hex } from '../hash.js';
import type { Value } from '../values/index.js';
import { ClosureVal, IdentityVal, MediaVal, PidVal, StructVal, Uncertain, VecVal, VMError } from '../values/index.js';

/** The text a value contributes to a context (and to a prompt). */
export function contextText(v: Value): string {
  if (v instanceof Uncertain) v = v.v;
  if (typeof v === 'string') return v;
  return canonical(v);
}

/**
 * The text of an `infer` prompt or a context entry. A media value is its label (with its full
 * hash); a list holding one is a prompt in parts, `["Describe this chart:", chart]`: its items'
 * texts one per line. Anything else is `contextText`.
 */
export function promptText(v: Value): string {
  if (v instanceof Uncertain) v = v.v;
  if (Array.isArray(v) && v.some((x) => (x instanceof Uncertain ? x.v : x) instanceof MediaVal)) return v.map(contextText).join('\n');
  return contextText(v);
}

/** The media values in `v` (itself, or inside its lists, maps and structs), first seen first. */
export function mediaIn(v: Value): MediaVal[] {
  const out: MediaVal[] = [];
  const seen = new Set<object>();
  const pending: Value[] = [v];
  while (pending.length > 0) {
    let x: Value = pending.pop()!;
    if (x instanceof Uncertain) x = x.v;
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (x instanceof MediaVal) out.push(x);
    else if (Array.isArray(x)) for (let i = x.length - 1; i >= 0; i--) pending.push(x[i]);
    else if (x instanceof Map) pending.push(...[...x.values()].reverse());
    else if (x instanceof StructVal) pending.push(...[...x.fields.values()].reverse());
  }
  return out;
}

/** `{ media }` for an infer request: the context's media, then the prompt's, each once; `{}` for none. */
export function withMedia(context: MediaVal[], prompt: Value): { media?: MediaVal[] } {
  const all = [...context];
  for (const m of mediaIn(prompt)) if (!all.some((x) => x.sha256 === m.sha256)) all.push(m);
  return all.length > 0 ? { media: all } : {};
}

function canonical(v: Value): string {
  if (v instanceof Uncertain) v = v.v;
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v instanceof Map) {
    const keys = [...v.keys()].sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(v.get(k)!)).join(',') + '}';
  }
  if (v instanceof StructVal) {
    const keys = [...v.fields.keys()].sort();
    return v.type + '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(v.fields.get(k)!)).join(',') + '}';
  }
  if (v instanceof VecVal) return 'vec[' + v.items.join(',') + ']';
  if (v instanceof PidVal) return `<pid ${v.id}>`;
  if (v instanceof ClosureVal) return `<closure ${v.name}>`;
  if (v instanceof IdentityVal) throw new VMError('an identity handle cannot be put in a context');
  if (v instanceof MediaVal) return v.promptLabel();
  return String(v);
}

/** Separator between entries, and between the context and the task. */
export const ENTRY_SEPARATOR = '\n\n';

export interface Tiers {
  /** P0: `context.system(..)`, never evicted */
  system: string[];
  /** P2: episodic, what was pushed out of P1 */
  episodic: string[];
  /** P1: working, the most recent entries */
  working: string[];
}

export interface RenderedPrompt {
  /** P0 entries joined: the system message */
  system: string;
  /** P2 then P1 entries joined: the start of the user message */
  context: string;
  /** what the program asks now (prompt, reply format): the end of the user message */
  task: string;
  /** sha256 (hex) of the prefix `system + "\u0000" + context` — equal prefixes, equal hashes */
  prefixHash: string;
  /** UTF-8 bytes of `system` and of `context` */
  prefixBytes: { system: number; context: number };
}

export function renderPrompt(tiers: Tiers, task: string): RenderedPrompt {
  const system = tiers.system.join(ENTRY_SEPARATOR);
  const context = [...tiers.episodic, ...tiers.working].join(ENTRY_SEPARATOR);
  return {
    system,
    context,
    task,
    prefixHash: prefixHash(system, context),
    prefixBytes: { system: Buffer.byteLength(system), context: Buffer.byteLength(context) },
  };
}

/** The last prefix hashed: consecutive calls of a loop usually ask with the same prefix (a SHA-256 per call was 8% of the mock model's profile). */
let lastPrefix: { system: string; context: string; hash: string } | undefined;
export function prefixHash(system: string, context: string): string {
  if (lastPrefix && lastPrefix.system === system && lastPrefix.context === context) return lastPrefix.hash;
  const hash = sha256Hex(system, '\u0000', context);
  lastPrefix = { system, context, hash };
  return hash;
}

/** The user message: the context, then the task. */
export function userText(p: RenderedPrompt): string {
  return p.context.length > 0 ? p.context + ENTRY_SEPARATOR + p.task : p.task;
}
