// A per-process model context with three tiers, budgeted in tokens (o200k_base, see tokens.ts):
//   P0 system entries (`context.system`): render first, never evicted;
//   P1 working entries (`context.append`): the most recent, within `working` tokens;
//   P2 episodic entries: what overflowed P1 (oldest first), within `episodic` tokens; what
//      overflows P2 (its oldest) is dropped.
// Render order is P0, P2, P1 — which is also the order the entries were added in, so a demotion
// from P1 to P2 never changes the rendered bytes; only a drop from P2 changes the prefix.
// An entry larger than the whole P1 budget is never allowed to wipe the context: it stays, cut to
// the budget with a visible marker (`truncateToTokens`), and only older entries move by the policy.
export { contextText, promptText, mediaIn, withMedia, renderPrompt, prefixHash, userText, ENTRY_SEPARATOR, type Tiers, type RenderedPrompt } from './render.js';
export { countTokens, TOKENIZER } from './tokens.js';
import { countTokens } from './tokens.js';
import type { Tiers } from './render.js';
import type { MediaVal } from '../values/index.js';

export interface ContextLimits {
  /** P1 budget in tokens */
  working: number;
  /** P2 budget in tokens */
  episodic: number;
}

export const DEFAULT_LIMITS: ContextLimits = { working: 8_000, episodic: 32_000 };

/** What an `append` pushed between tiers (for the run's event stream). */
export interface AppendEffect {
  demoted: { text: string; tokens: number }[];
  dropped: { text: string; tokens: number }[];
  /** the appended entry was larger than the P1 budget: its original size in tokens (it was cut to fit) */
  truncated?: number;
}

/** The marker a cut entry ends with; it says how much of the entry the context kept. */
export const truncationMarker = (kept: number, total: number): string => ` … [truncated: ${kept} of ${total} tokens kept]`;

/**
 * `text` cut so that it and its marker fit `limit` tokens (a binary search over its length, so the
 * tokenizer runs O(log n) times). A limit too small for the marker keeps nothing but the marker.
 */
export function truncateToTokens(text: string, limit: number, total = countTokens(text)): string {
  let lo = 0;
  let hi = text.length;
  const fits = (n: number) => countTokens(text.slice(0, n) + truncationMarker(countTokens(text.slice(0, n)), total)) <= limit;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  // never split a surrogate pair
  if (lo > 0 && /[\uD800-\uDBFF]/.test(text[lo - 1])) lo--;
  const kept = text.slice(0, lo);
  return kept + truncationMarker(countTokens(kept), total);
}

const UNKNOWN = -1;

/**
 * One tier's entries with their token counts. A count is computed when it matters: a BPE token
 * is at least one UTF-8 byte, so while a tier's bytes fit its budget its tokens do too, and the
 * tokenizer runs only once a tier may be over budget. Budgets are enforced on exact counts.
 */
class Tier {
  texts: string[] = [];
  tokens: number[] = [];
  /** sum of exact tokens and, for entries not counted yet, their bytes: an upper bound of the tokens */
  bound = 0;

  push(text: string, tokens: number = UNKNOWN): void {
    this.texts.push(text);
    this.tokens.push(tokens);
    this.bound += tokens === UNKNOWN ? Buffer.byteLength(text) : tokens;
  }

  /** Counts every entry; `bound` becomes the exact total. */
  count(): number {
    let total = 0;
    for (let i = 0; i < this.texts.length; i++) {
      if (this.tokens[i] === UNKNOWN) this.tokens[i] = countTokens(this.texts[i]);
      total += this.tokens[i];
    }
    this.bound = total;
    return total;
  }

  /** Keeps the total within `limit`, taking from the front; returns what it took. */
  trim(limit: number): { text: string; tokens: number }[] {
    const out: { text: string; tokens: number }[] = [];
    if (this.bound <= limit) return out;
    // The bound counted some entries by bytes; make the front entries exact as they go.
    this.count();
    while (this.bound > limit && this.texts.length > 0) {
      const e = { text: this.texts.shift()!, tokens: this.tokens.shift()! };
      this.bound -= e.tokens;
      out.push(e);
    }
    return out;
  }

  copy(): Tier {
    const t = new Tier();
    t.texts = this.texts.slice();
    t.tokens = this.tokens.slice();
    t.bound = this.bound;
    return t;
  }
}

export class Context {
  private p0 = new Tier();
  private p1 = new Tier();
  private p2 = new Tier();
  /**
   * The media values placed in this context (std/media), by content hash. An entry holds a media
   * value's label (`MediaVal.promptLabel`); the value itself, with its bytes, is kept here, and goes
   * with a request while an entry holding its label is still in a tier (`mediaPresent`). Only a
   * value placed here is ever sent: text that merely looks like a label attaches nothing else.
   */
  private media = new Map<string, MediaVal>();

  constructor(public limits: ContextLimits = DEFAULT_LIMITS) {}

  /** P0 entries */
  get system(): string[] {
    return this.p0.texts;
  }

  /** P1 entries, oldest first */
  get working(): string[] {
    return this.p1.texts;
  }

  /** P2 entries, oldest first */
  get episodic(): string[] {
    return this.p2.texts;
  }

  addSystem(entry: string): void {
    this.p0.push(entry);
  }

  append(entry: string): AppendEffect {
    let truncated: number | undefined;
    // bytes bound tokens: only an entry with more bytes than the budget may be too large
    if (Buffer.byteLength(entry) > this.limits.working) {
      const tokens = countTokens(entry);
      if (tokens > this.limits.working) {
        truncated = tokens;
        entry = truncateToTokens(entry, this.limits.working, tokens);
      }
    }
    this.p1.push(entry);
    const demoted = this.p1.trim(this.limits.working);
    for (const e of demoted) this.p2.push(e.text, e.tokens);
    const dropped = this.p2.trim(this.limits.episodic);
    return truncated === undefined ? { demoted, dropped } : { demoted, dropped, truncated };
  }

  /** Keeps a media value placed in the context (its label is the entry's text). */
  addMedia(m: MediaVal): void {
    this.media.set(m.sha256, m);
  }

  /** The media values whose labels are in entries still present, in render order; drops the rest. */
  mediaPresent(): MediaVal[] {
    if (this.media.size === 0) return [];
    const out: MediaVal[] = [];
    const seen = new Set<string>();
    for (const text of this.render()) {
      for (const [hash, m] of this.media) {
        if (!seen.has(hash) && text.includes(m.promptLabel())) {
          seen.add(hash);
          out.push(m);
        }
      }
    }
    for (const hash of [...this.media.keys()]) if (!seen.has(hash)) this.media.delete(hash); // evicted with its entries
    return out;
  }

  /** Entries in render order: P0, P2, P1. */
  render(): string[] {
    return [...this.p0.texts, ...this.p2.texts, ...this.p1.texts];
  }

  tiers(): Tiers {
    return { system: this.p0.texts.slice(), episodic: this.p2.texts.slice(), working: this.p1.texts.slice() };
  }

  /** Exact token totals per tier (runs the tokenizer on entries not counted yet). */
  usage(): { system: number; episodic: number; working: number } {
    return { system: this.p0.count(), episodic: this.p2.count(), working: this.p1.count() };
  }

  snapshot(): Context {
    const c = new Context(this.limits);
    c.p0 = this.p0.copy();
    c.p1 = this.p1.copy();
    c.p2 = this.p2.copy();
    c.media = new Map(this.media);
    return c;
  }
}
