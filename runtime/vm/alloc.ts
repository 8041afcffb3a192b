// What the run's allocation budget (`--max-alloc`, docs/reliability.md) charges for the values the
// VM and its tools make. The unit is a cell of about 8 bytes of V8 heap, so the budget bounds the
// memory a run can fill, whatever shape its data has: a list costs its header and one cell per
// element, a map or struct a larger header and about four cells per entry (a hash table's), text
// one cell per four characters. The budget is a sum over the run (what is made, not what is live):
// deterministic, so a replay spends exactly what the first run spent, and cheap (a subtraction
// where a value is made).
import { ClosureVal, StructVal } from '../values/index.js';

/** the default budget: about 400 MB of values made; the test suite and examples need far less */
export const DEFAULT_MAX_ALLOC = 50_000_000;

/** a list (or vector) of `n` elements */
export const listCost = (n: number): number => 4 + n;
/** a map or struct of `n` entries */
export const mapCost = (n: number): number => 24 + 4 * n;
/** `n` characters of new text */
export const textCost = (n: number): number => (n + 3) >>> 2;
/** a closure over `n` cells */
export const closureCost = (n: number): number => 8 + n;
/** a new process: its record, stack and frame (0.65–1 KB; the charge stays as it was, so budgets mean what they meant) */
export const PROCESS_COST = 128;

/** What a value a host tool or an effect returned (plain JSON-like data) costs once it is a Turn value. */
export function plainCost(x: unknown): number {
  let n = 0;
  const todo: unknown[] = [x];
  // iterative: a deep reply cannot overflow the JavaScript stack here
  while (todo.length > 0) {
    const v = todo.pop();
    if (typeof v === 'string') {
      n += textCost(v.length);
    } else if (Array.isArray(v)) {
      n += listCost(v.length);
      for (const e of v) {
        if (typeof e === 'string') n += textCost(e.length);
        else if (e !== null && typeof e === 'object') todo.push(e);
      }
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      n += mapCost(entries.length);
      for (const [k, e] of entries) {
        n += textCost(k.length);
        if (typeof e === 'string') n += textCost(e.length);
        else if (e !== null && typeof e === 'object') todo.push(e);
      }
    }
  }
  return n;
}

/** What the containers a deep copy made cost (the keys of `isolate`'s memo, past the first `skip`). */
export function copiedCost(memo: Map<object, unknown>, skip = 0): number {
  let n = 0;
  let i = 0;
  for (const v of memo.keys()) {
    if (i++ < skip) continue;
    if (Array.isArray(v)) n += listCost(v.length);
    else if (v instanceof Map) n += mapCost(v.size);
    else if (v instanceof StructVal) n += mapCost(v.fields.size);
    else if (v instanceof ClosureVal) n += closureCost(v.cells.length);
    else n += 2; // a cell
  }
  return n;
}
