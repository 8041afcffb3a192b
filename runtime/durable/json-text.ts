// JSON text of a journal payload or an input to hash, at any depth. JSON.stringify recurses, so a
// value nested a few thousand levels deep (a list of lists the program built) throws "Maximum call
// stack size exceeded" there; this gives the very text JSON.stringify would, by walking the value
// with an explicit stack once JSON.stringify has run out of stack. Shallow values — nearly all —
// take JSON.stringify itself, so their text (and the input hashes recorded from it) never change.

/** `JSON.stringify(v)` at any depth (undefined where it gives undefined). */
export function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return deepJsonText(v);
  }
}

/** An open array or object: what is left to write of it. */
interface Open {
  holder: object;
  keys: string[] | null; // null: an array
  i: number;
  /** a member was written (the next one is preceded by a comma) */
  wrote: boolean;
}

/** What JSON.stringify does to one value before writing it: toJSON, then undefined for what it skips. */
function prepared(holder: unknown, key: string, v: unknown): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(k: string): unknown }).toJSON(key);
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
  if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
  return v;
}

function scalar(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  // a boxed primitive (new Number(1), ...): JSON.stringify writes its value
  return JSON.stringify(v);
}

const isContainer = (v: unknown): v is object =>
  v !== null && typeof v === 'object' && !(v instanceof Number || v instanceof String || v instanceof Boolean);

/** The text written in order, depth first (a member JSON.stringify skips is known before anything of it is written). */
function deepJsonText(root: unknown): string | undefined {
  const top = prepared(undefined, '', root);
  if (top === undefined) return undefined;
  if (!isContainer(top)) return scalar(top);
  const out: string[] = [];
  const path = new Set<object>();
  const stack: Open[] = [];
  const open = (o: object): void => {
    if (path.has(o)) throw new TypeError('Converting circular structure to JSON');
    path.add(o);
    const keys = Array.isArray(o) ? null : Object.keys(o);
    out.push(keys === null ? '[' : '{');
    stack.push({ holder: o, keys, i: 0, wrote: false });
  };
  open(top);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const length = f.keys === null ? (f.holder as unknown[]).length : f.keys.length;
    if (f.i >= length) {
      stack.pop();
      path.delete(f.holder);
      out.push(f.keys === null ? ']' : '}');
      continue;
    }
    const key = f.keys === null ? String(f.i) : f.keys[f.i];
    f.i++;
    let v = prepared(f.holder, key, (f.holder as Record<string, unknown>)[key]);
    if (v === undefined) {
      if (f.keys !== null) continue; // an object leaves the member out
      v = null; // an array keeps the slot
    }
    if (f.wrote) out.push(',');
    f.wrote = true;
    if (f.keys !== null) out.push(JSON.stringify(key), ':');
    if (isContainer(v)) open(v);
    else out.push(scalar(v));
  }
  return out.join('');
}
