// A lenient reader of a JSON prefix: what a model has streamed so far of a structured reply. It
// returns the members and elements that are complete, containers still open with their complete
// parts (a struct's fields as they arrive), and which value is being written with its text so far.
// No package of the registry was installed for this (partial-json, best-effort-json-parser are
// not dependencies), and it is small: one pass over the text, no recursion limit reached by a
// reply (depth past MAX_DEPTH stops the reading there). No `vscode` import: tested in Node.

/** What the prefix holds so far. */
export interface PartialJson {
  /** the complete part: objects and arrays keep their complete members; an unfinished scalar is left out */
  value: unknown;
  /** the text is a whole JSON value (nothing is missing at its end) */
  done: boolean;
  /** the value being written when the text ends: its JSON pointer and its text so far (a string's characters, a number's digits) */
  writing: { path: string; text: string } | null;
}

const MAX_DEPTH = 200;

/** Thrown where the text ends (or stops being JSON): the reading stops, keeping what it has. */
class End {}
const END = new End();

/** The JSON value at the start of `text` (after any text before its first `{` or `[`), or null when there is none. */
export function readPartialJson(text: string): PartialJson | null {
  const start = text.search(/[[{]/);
  if (start < 0) return null;
  const r = new Reader(text, start);
  const root = r.container('', 0);
  return { value: root.value, done: root.done, writing: r.writing };
}

/**
 * A streamed reply's value so far: the envelope's `value` (`{"value": …, "confidence": …}`) when
 * the reply is one, else the whole prefix. Null while nothing of a value has come.
 */
export function partialReplyValue(text: string): PartialJson | null {
  const p = readPartialJson(text);
  if (!p) return null;
  const v = p.value;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, 'value')) {
    const inner = (v as { value: unknown }).value;
    const w = p.writing;
    const writing = w && (w.path === '/value' || w.path.startsWith('/value/')) ? { path: w.path.slice('/value'.length) || '/', text: w.text } : null;
    return { value: inner, done: p.done || 'confidence' in v, writing };
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 && p.writing?.path === '/value') {
    return { value: null, done: false, writing: { path: '/', text: p.writing.text } };
  }
  return p;
}

class Reader {
  writing: PartialJson['writing'] = null;
  constructor(private readonly s: string, private i: number) {}

  private ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i])) this.i++;
    if (this.i >= this.s.length) throw END;
  }

  /** An object or array at `i`: what is complete of it, and whether it closed. */
  container(path: string, depth: number): { value: unknown; done: boolean } {
    const open = this.s[this.i];
    const isObject = open === '{';
    const out: Record<string, unknown> | unknown[] = isObject ? {} : [];
    this.i++;
    if (depth >= MAX_DEPTH) return { value: out, done: false };
    try {
      let expectItem = true;
      for (;;) {
        this.ws();
        const c = this.s[this.i];
        if (c === (isObject ? '}' : ']')) {
          this.i++;
          return { value: out, done: true };
        }
        if (c === ',') {
          this.i++;
          expectItem = true;
          continue;
        }
        if (!expectItem) throw END; // not JSON: stop here
        expectItem = false;
        let key = String((out as unknown[]).length);
        if (isObject) {
          if (c !== '"') throw END;
          const k = this.string(null);
          if (k === undefined) throw END;
          key = k;
          this.ws();
          if (this.s[this.i] !== ':') throw END;
          this.i++;
        }
        const item = this.value(`${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
        if (item === undefined) throw END;
        if (Array.isArray(out)) out.push(item.value);
        // (defineProperty: a member named __proto__ is a member, not the object's prototype)
        else Object.defineProperty(out, key, { value: item.value, enumerable: true, writable: true, configurable: true });
        if (!item.done) throw END;
      }
    } catch (e) {
      if (e !== END) throw e;
      return { value: out, done: false };
    }
  }

  /** A value at `i` (after white space): undefined when the text ends inside a scalar. */
  private value(path: string, depth: number): { value: unknown; done: boolean } | undefined {
    this.ws();
    const c = this.s[this.i];
    if (c === '{' || c === '[') return this.container(path, depth);
    if (c === '"') {
      const v = this.string(path);
      return v === undefined ? undefined : { value: v, done: true };
    }
    const m = /^(?:-?[0-9][0-9.eE+-]*|-|true|false|null|t|tr|tru|f|fa|fal|fals|n|nu|nul)/.exec(this.s.slice(this.i, this.i + 64));
    if (!m) throw END;
    const token = m[0];
    if (this.i + token.length >= this.s.length) {
      // the text ends in the token: more digits (or letters) may follow
      this.writing = { path, text: token };
      this.i += token.length;
      return undefined;
    }
    this.i += token.length;
    try {
      return { value: JSON.parse(token) as unknown, done: true };
    } catch {
      throw END;
    }
  }

  /** A string at `i`; undefined when the text ends inside it (its characters so far become `writing` when a path is given). */
  private string(path: string | null): string | undefined {
    const from = this.i;
    let j = this.i + 1;
    while (j < this.s.length) {
      const c = this.s[j];
      if (c === '\\') j += 2;
      else if (c === '"') {
        this.i = j + 1;
        try {
          return JSON.parse(this.s.slice(from, j + 1)) as string;
        } catch {
          throw END;
        }
      } else j++;
    }
    if (path !== null) this.writing = { path, text: decodePartial(this.s.slice(from + 1)) };
    this.i = this.s.length;
    return undefined;
  }
}

/** The characters of an unfinished JSON string (an escape cut in half is left out). */
function decodePartial(body: string): string {
  const cut = body.replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return JSON.parse(`"${cut}"`) as string;
  } catch {
    return cut;
  }
}
