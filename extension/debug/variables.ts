// The debugger's values as trees (the Variables view, watches, hovers): what a row shows and what
// it expands to. Structs are named by their type, lists and maps are cut on their row (with their
// size) and fold past FOLD children into ranges (`[0…99]`, each a row that expands), long strings are cut on their row
// and shown whole, line by line, when expanded. An uncertain value shows its confidence and
// expands as its value. No DAP or `vscode` import: the adapter turns Nodes into DAP variables.
import { StructVal, Uncertain, renderValue, type Value } from '../../runtime/index.js';

/** At most this many children under one row; more are folded into ranges of rows. */
export const FOLD = 100;
/** A string longer than this (or of several lines) is cut on its row and expands to its whole text. */
export const LONG_STRING = 120;
/** The preview of a container on its row. */
const PREVIEW = 200;

/** What a row expands to: a value's children, a range of them, or a string's lines. */
export type Expand =
  | { kind: 'value'; value: Value }
  | { kind: 'range'; value: Value[] | Map<string, Value>; start: number; end: number }
  | { kind: 'text'; text: string };

export interface Row {
  name: string;
  /** the row's text */
  value: string;
  /** the value's type as Turn names it (`Plan`, `List`, `Map`, `Str`...) */
  type: string;
  /** what it expands to (null: a leaf) */
  expand: Expand | null;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function typeOf(v: Value): string {
  if (v === null) return 'Null';
  if (Array.isArray(v)) return 'List';
  if (v instanceof Map) return 'Map';
  if (v instanceof StructVal) return v.type;
  if (v instanceof Uncertain) return typeOf(v.v);
  switch (typeof v) {
    case 'string': return 'Str';
    case 'number': return 'Num';
    case 'boolean': return 'Bool';
    default: return (v as object).constructor.name.replace(/Val$/, '');
  }
}

/** A container's text on its row: as the program prints it, cut past PREVIEW with its size said. */
function preview(value: Value, size: number, what: string): string {
  const text = renderValue(value, false, PREVIEW);
  return text.endsWith('…') ? `${text} (${size} ${what})` : text;
}

/** The row of `value` under `name`. */
export function row(name: string, value: Value): Row {
  if (value instanceof Uncertain) {
    const inner = row(name, value.v);
    return { ...inner, value: `${inner.value} (confidence ${+value.c.toFixed(3)})` };
  }
  const type = typeOf(value);
  if (typeof value === 'string') {
    const long = value.length > LONG_STRING || value.includes('\n');
    const shown = renderValue(value);
    return { name, type, value: long ? `${clip(shown.split('\n')[0], LONG_STRING)}… (${value.length} characters)` : shown, expand: long ? { kind: 'text', text: value } : null };
  }
  if (Array.isArray(value)) {
    return { name, type, value: preview(value, value.length, 'items'), expand: value.length ? { kind: 'value', value } : null };
  }
  if (value instanceof Map) {
    return { name, type, value: preview(value, value.size, 'entries'), expand: value.size ? { kind: 'value', value } : null };
  }
  if (value instanceof StructVal) {
    return { name, type, value: renderValue(value, false, PREVIEW), expand: value.fields.size ? { kind: 'value', value } : null };
  }
  return { name, type, value: renderValue(value, false, PREVIEW), expand: null };
}

/** The rows `expand` opens to. */
export function children(expand: Expand): Row[] {
  if (expand.kind === 'text') return expand.text.split('\n').map((line, i) => ({ name: `line ${i + 1}`, value: line, type: 'Str', expand: null }));
  if (expand.kind === 'range') return span(expand.value, expand.start, expand.end);
  const v = expand.value;
  if (v instanceof Uncertain) return children({ kind: 'value', value: v.v });
  if (v instanceof StructVal) return [...v.fields].map(([k, x]) => row(k, x));
  if (Array.isArray(v) || v instanceof Map) return span(v, 0, Array.isArray(v) ? v.length : v.size);
  return [];
}

/** Children `start`..`end` of a list or map: themselves when at most FOLD, else FOLD-or-fewer ranges. */
function span(v: Value[] | Map<string, Value>, start: number, end: number): Row[] {
  const n = end - start;
  if (n <= FOLD) {
    if (Array.isArray(v)) return v.slice(start, end).map((x, i) => row(`[${start + i}]`, x));
    const rows: Row[] = [];
    let i = 0;
    for (const [k, x] of v) {
      if (i >= end) break;
      if (i++ >= start) rows.push(row(k, x));
    }
    return rows;
  }
  // ranges of FOLD^k rows, the smallest k that leaves at most FOLD ranges
  let size = FOLD;
  while (Math.ceil(n / size) > FOLD) size *= FOLD;
  const rows: Row[] = [];
  for (let from = start; from < end; from += size) {
    const to = Math.min(end, from + size);
    rows.push({ name: `[${from}…${to - 1}]`, value: `${to - from} ${Array.isArray(v) ? 'items' : 'entries'}`, type: '', expand: { kind: 'range', value: v, start: from, end: to } });
  }
  return rows;
}
