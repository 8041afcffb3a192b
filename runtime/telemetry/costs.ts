// A run's token summary, and what it cost under a price table the user gives
// (docs/observability.md, *Costs*). Turn has no prices of its own: a built-in table would go stale
// without anyone noticing. The table is a JSON file:
//
//   { "currency": "USD", "per": 1000000,
//     "models": { "openai:gpt-4o-mini": { "input": 0.15, "cached": 0.075, "output": 0.6 } } }
//
// prices per `per` tokens (default one million), keyed by the model as Turn names it; `cached`
// (prompt tokens read from the provider's cache) defaults to `input`.
import * as fs from 'node:fs';
import type { ModelTokens } from './tokens.js';

export interface ModelPrice {
  input: number;
  cached?: number;
  output: number;
}

export interface PriceTable {
  /** where it was read from (messages name it) */
  source: string;
  currency: string;
  per: number;
  models: Map<string, ModelPrice>;
}

/** A price table that cannot be used: the message names the file and the field. */
export class PriceTableError extends Error {}

/** The largest price table read (a table of every model there is fits in far less). */
const MAX_TABLE_BYTES = 1024 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parsePriceTable(text: string, source: string): PriceTable {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new PriceTableError(`${source}: not JSON (${(e as Error).message})`);
  }
  if (!isObject(doc)) throw new PriceTableError(`${source}: a price table is a JSON object with "models"`);
  const currency = doc.currency ?? 'USD';
  if (typeof currency !== 'string' || !/^[A-Za-z]{1,8}$/.test(currency)) throw new PriceTableError(`${source}: "currency" must be a short name such as "USD"`);
  const per = doc.per ?? 1_000_000;
  if (typeof per !== 'number' || !Number.isFinite(per) || per <= 0) throw new PriceTableError(`${source}: "per" must be a number of tokens > 0`);
  if (!isObject(doc.models)) throw new PriceTableError(`${source}: "models" must be an object from model names to prices`);
  const models = new Map<string, ModelPrice>();
  for (const [name, p] of Object.entries(doc.models)) {
    const where = `${source}: models[${JSON.stringify(name.slice(0, 80))}]`;
    if (!isObject(p)) throw new PriceTableError(`${where} must be an object {"input", "output", "cached"?}`);
    const price = (field: string, optional: boolean): number | undefined => {
      const v = p[field];
      if (v === undefined && optional) return undefined;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PriceTableError(`${where}.${field} must be a number >= 0`);
      return v;
    };
    const cached = price('cached', true);
    models.set(name, { input: price('input', false)!, output: price('output', false)!, ...(cached !== undefined ? { cached } : {}) });
  }
  return { source, currency, per, models };
}

/** Reads a price table file (bounded). Throws PriceTableError. */
export function readPriceTable(file: string): PriceTable {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw new PriceTableError(`cannot read the price table ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!st.isFile()) throw new PriceTableError(`the price table ${file} is not a file`);
  if (st.size > MAX_TABLE_BYTES) throw new PriceTableError(`the price table ${file} is larger than 1 MiB`);
  return parsePriceTable(fs.readFileSync(file, 'utf8'), file);
}

/** What one model's tokens cost, or undefined when the table has no price for it. */
export function costOf(t: ModelTokens, table: PriceTable): number | undefined {
  const p = table.models.get(t.model);
  if (!p) return undefined;
  const cached = Math.min(t.cachedTokens, t.inputTokens);
  return ((t.inputTokens - cached) * p.input + cached * (p.cached ?? p.input) + t.outputTokens * p.output) / table.per;
}

/** The summary as `--json` and the run panel carry it. */
export interface TokenSummary {
  models: (ModelTokens & { cost?: number })[];
  /** the sum over the models the table prices; absent without a table */
  cost?: { total: number; currency: string; unpriced: string[] };
}

export function tokenSummary(tokens: ModelTokens[], table?: PriceTable): TokenSummary {
  if (!table) return { models: tokens };
  let total = 0;
  const unpriced: string[] = [];
  const models = tokens.map((t) => {
    const cost = costOf(t, table);
    if (cost === undefined) unpriced.push(t.model);
    else total += cost;
    return cost === undefined ? t : { ...t, cost };
  });
  return { models, cost: { total, currency: table.currency, unpriced } };
}

const n = (x: number): string => x.toLocaleString('en-US');

/** A money amount: enough digits that a cheap run does not read as zero. */
export function money(amount: number, currency: string): string {
  const digits = amount === 0 || amount >= 1 ? 2 : Math.min(8, Math.max(2, 1 - Math.floor(Math.log10(amount))));
  return `${amount.toFixed(digits)} ${currency}`;
}

/** The summary as lines for standard error: one per model, then the total cost. */
export function summaryLines(summary: TokenSummary): string[] {
  const lines = summary.models.map((m) => {
    const calls = `${n(m.calls)} call${m.calls === 1 ? '' : 's'}` + (m.retries > 0 ? `, ${n(m.retries)} retried` : '') + (m.failed > 0 ? `, ${n(m.failed)} failed` : '');
    const tokens = `${n(m.inputTokens)} prompt tokens (${n(m.cachedTokens)} cached), ${n(m.outputTokens)} completion tokens`;
    const unreported = m.unreported > 0 ? ` (${n(m.unreported)} call${m.unreported === 1 ? '' : 's'} reported no usage)` : '';
    const cost = m.cost !== undefined && summary.cost ? `: ${money(m.cost, summary.cost.currency)}` : '';
    return `tokens: ${m.model}: ${calls}; ${tokens}${unreported}${cost}`;
  });
  if (summary.cost) {
    const missing = summary.cost.unpriced.length > 0 ? ` (no price for ${summary.cost.unpriced.join(', ')})` : '';
    lines.push(`cost: ${money(summary.cost.total, summary.cost.currency)}${missing}`);
  }
  return lines;
}
