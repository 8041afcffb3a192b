// A value as the panel receives it (text: JSON, or a Turn value as `render` prints it: structs as
// `Name { field: v }`, maps `{"k": v}`, lists, `<pid 3>`, `vec [..]`) parsed into a tree the value
// view folds and colours (valuetree.ts), and back to JSON for "Copy as JSON". No DOM (tested in
// Node). Text that is neither (a plain top-level string, a clipped value) stays one string leaf.

export type ValueNode =
  | { kind: 'struct'; name: string; fields: [string, ValueNode][] }
  | { kind: 'map'; entries: [string, ValueNode][] }
  | { kind: 'list'; items: ValueNode[]; vec?: boolean }
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  /** `<pid 3>`, `<closure f>`, `<identity bearer>` */
  | { kind: 'atom'; text: string };

const MAX_DEPTH = 200;

class Parser {
  i = 0;
  constructor(private readonly s: string) {}

  fail(): never {
    throw new Error('not a value');
  }

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  eat(t: string): boolean {
    this.ws();
    if (this.s.startsWith(t, this.i)) {
      this.i += t.length;
      return true;
    }
    return false;
  }

  expect(t: string): void {
    if (!this.eat(t)) this.fail();
  }

  string(): string {
    this.ws();
    if (this.s[this.i] !== '"') this.fail();
    let j = this.i + 1;
    while (j < this.s.length && this.s[j] !== '"') j += this.s[j] === '\\' ? 2 : 1;
    if (j >= this.s.length) this.fail();
    const text = this.s.slice(this.i, j + 1);
    this.i = j + 1;
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }

  value(depth: number): ValueNode {
    if (depth > MAX_DEPTH) this.fail();
    this.ws();
    const c = this.s[this.i];
    if (c === '"') return { kind: 'string', value: this.string() };
    if (c === '[') return { kind: 'list', items: this.items(']', depth) };
    if (c === '{') {
      this.i++;
      const entries: [string, ValueNode][] = [];
      if (!this.eat('}')) {
        do {
          const k = this.string();
          this.expect(':');
          entries.push([k, this.value(depth + 1)]);
        } while (this.eat(','));
        this.expect('}');
      }
      return { kind: 'map', entries };
    }
    if (c === '<') {
      const j = this.s.indexOf('>', this.i);
      if (j < 0) this.fail();
      const text = this.s.slice(this.i, j + 1);
      this.i = j + 1;
      return { kind: 'atom', text };
    }
    const num = /^-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|Infinity|NaN)/.exec(this.s.slice(this.i, this.i + 40));
    if (num) {
      this.i += num[0].length;
      return { kind: 'number', text: num[0] };
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i, this.i + 200));
    if (!word) this.fail();
    this.i += word[0].length;
    if (word[0] === 'true' || word[0] === 'false') return { kind: 'bool', value: word[0] === 'true' };
    if (word[0] === 'null') return { kind: 'null' };
    if (word[0] === 'vec' && this.eat('[')) {
      this.i--;
      return { kind: 'list', items: this.items(']', depth), vec: true };
    }
    // a struct: Name { field: v, ... } (or Name {})
    if (!this.eat('{')) this.fail();
    const fields: [string, ValueNode][] = [];
    if (!this.eat('}')) {
      do {
        this.ws();
        const f = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i, this.i + 200));
        if (!f) this.fail();
        this.i += f[0].length;
        this.expect(':');
        fields.push([f[0], this.value(depth + 1)]);
      } while (this.eat(','));
      this.expect('}');
    }
    return { kind: 'struct', name: word[0], fields };
  }

  items(close: string, depth: number): ValueNode[] {
    this.expect('[');
    const out: ValueNode[] = [];
    if (this.eat(close)) return out;
    do out.push(this.value(depth + 1));
    while (this.eat(','));
    this.expect(close);
    return out;
  }
}

/** The tree of a value's text; text that does not parse whole is one string. */
export function parseValue(text: string): ValueNode {
  const t = text.trim();
  if (t === '') return { kind: 'string', value: text };
  try {
    const p = new Parser(t);
    const v = p.value(0);
    p.ws();
    if (p.i !== t.length) return { kind: 'string', value: text };
    return v;
  } catch {
    return { kind: 'string', value: text };
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The value as JSON data: a struct is an object of its fields, a pid or closure its text. */
export function toJson(v: ValueNode): Json {
  switch (v.kind) {
    case 'struct':
      return Object.fromEntries(v.fields.map(([k, x]) => [k, toJson(x)]));
    case 'map':
      return Object.fromEntries(v.entries.map(([k, x]) => [k, toJson(x)]));
    case 'list':
      return v.items.map(toJson);
    case 'string':
      return v.value;
    case 'number': {
      const n = Number(v.text);
      return Number.isFinite(n) ? n : v.text;
    }
    case 'bool':
      return v.value;
    case 'null':
      return null;
    case 'atom':
      return v.text;
  }
}

/** How many children a container has (0 for a leaf). */
export function childCount(v: ValueNode): number {
  return v.kind === 'struct' ? v.fields.length : v.kind === 'map' ? v.entries.length : v.kind === 'list' ? v.items.length : 0;
}

/** A one-line preview of a value, at most `max` characters: `Plan { topics: [3 items], tone: "upbeat" }`. */
export function preview(v: ValueNode, max = 80): string {
  const leaf = (x: ValueNode): string => {
    switch (x.kind) {
      case 'struct':
        return `${x.name} {…}`;
      case 'map':
        return `{${x.entries.length} keys}`;
      case 'list':
        return `[${x.items.length} items]`;
      case 'string':
        return JSON.stringify(x.value.length > 24 ? `${x.value.slice(0, 24)}…` : x.value);
      case 'number':
        return x.text;
      case 'bool':
        return String(x.value);
      case 'null':
        return 'null';
      case 'atom':
        return x.text;
    }
  };
  let text: string;
  if (v.kind === 'struct') text = `${v.name} { ${v.fields.map(([k, x]) => `${k}: ${leaf(x)}`).join(', ')} }`;
  else if (v.kind === 'map') text = `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}: ${leaf(x)}`).join(', ')}}`;
  else if (v.kind === 'list') text = `[${v.items.map(leaf).join(', ')}]`;
  else text = leaf(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The confidence typed in the fork form: a number in [0, 1], undefined when left empty, null when it is not one. */
export function parseConfidence(text: string): number | undefined | null {
  if (text.trim() === '') return undefined;
  const c = Number(text);
  return Number.isFinite(c) && c >= 0 && c <= 1 ? c : null;
}
