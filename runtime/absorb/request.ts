// What an absorbed OpenAPI operation sends: a Turn struct's optional field that was left out (or is
// null) is left out of the JSON request body, as a non-required property is absent on the wire
// (sending `"id": null` for a non-nullable `id` would break the spec). The generated module calls the
// pure tool `json_drop_nulls` (registered in runtime/effects/tools.ts) on the body.

/** `json_drop_nulls(value)` → the value with every null-valued property of every object removed (list items are kept). Iterative. */
export function jsonDropNulls(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const root: { v: unknown } = { v: undefined };
  const stack: { from: unknown; put: (x: unknown) => void }[] = [{ from: value, put: (x) => (root.v = x) }];
  while (stack.length > 0) {
    const { from, put } = stack.pop()!;
    if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      put(out);
      from.forEach((x, i) => (x !== null && typeof x === 'object' ? stack.push({ from: x, put: (y) => (out[i] = y) }) : (out[i] = x)));
    } else if (from !== null && typeof from === 'object') {
      const out: Record<string, unknown> = {};
      put(out);
      for (const [k, x] of Object.entries(from)) {
        if (x === null) continue;
        if (typeof x === 'object') {
          out[k] = null; // keeps the key order; replaced below
          stack.push({ from: x, put: (y) => (out[k] = y) });
        } else out[k] = x;
      }
    } else put(from);
  }
  return root.v;
}
