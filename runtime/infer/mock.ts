// The deterministic `mock` model: synthesizes a value that conforms to a schema, checks included
// (ranges, lengths, item counts, patterns where one of a few candidates matches, `@check`
// predicates where a small search finds a value they accept). `seed` varies the choices a type
// leaves open — which member of a union, which value of an enum, whether an optional field is
// there — so tests can see every shape; seed 0 takes the first member and fills every field.
import { patternProblem, testLinear } from '../linear-regex.js';
import { PREDICATE_KEYWORD, type PredicateCheck } from './checks.js';
import { resolve } from './compiled.js';
import { runPredicate } from './predicate.js';
import { fromReply } from './reply-value.js';

export const MOCK_CONFIDENCE = 0.9;

type Schema = Record<string, unknown>;

/** Past this depth of recursive `$ref`s, lists are as short and optionals as absent as allowed. */
const RECURSION_DEPTH = 3;

const STRING_CANDIDATES = ['mock', 'a', 'mock@example.com', 'Mock', 'MOCK', '0', 'mock-1', 'https://example.com', '2024-01-01', 'x'];

export function mockValue(schema: unknown, seed = 0): unknown {
  if (!schema || typeof schema !== 'object') return null;
  return new Mock(schema as Schema, seed).value(schema as Schema, 0, 0);
}

/** A reply of the mock provider: a conforming value and a fixed confidence of 0.9. */
export function mockReply(schema: object, seed = 0): { value: unknown; confidence: number } {
  return { value: mockValue(schema, seed), confidence: MOCK_CONFIDENCE };
}

class Mock {
  /** a counter mixed with the seed: each choice point draws the next number */
  private draws = 0;

  constructor(
    private readonly root: Schema,
    private readonly seed: number,
  ) {}

  /** A number in [0, n) for the next choice: 0 at seed 0, else varied by seed and position. */
  private choose(n: number): number {
    const k = this.draws++;
    if (this.seed === 0 || n <= 1) return 0;
    let x = (Math.imul(this.seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(k + 1, 0xc2b2ae35)) >>> 0;
    x ^= x >>> 16;
    x = Math.imul(x, 0x27d4eb2d) >>> 0;
    x ^= x >>> 15;
    return (x >>> 0) % n;
  }

  value(node: Schema, depth: number, refs: number): unknown {
    if (depth > 200) return null;
    const isRef = typeof node.$ref === 'string';
    const s = resolve(this.root, node);
    const r = refs + (isRef ? 1 : 0);
    const checks = s[PREDICATE_KEYWORD] as PredicateCheck[] | undefined;
    const made = this.unchecked(s, depth, r);
    if (!checks || checks.length === 0) return made;
    return this.satisfying(s, checks, made, depth, r);
  }

  private unchecked(s: Schema, depth: number, refs: number): unknown {
    if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[this.choose(s.enum.length)];
    if ('const' in s) return s.const;
    if (Array.isArray(s.anyOf) && s.anyOf.length > 0) {
      const members = s.anyOf as Schema[];
      const nonNull = members.filter((m) => m.type !== 'null');
      // Deep in a recursion, null ends it if the union allows it.
      if (refs >= RECURSION_DEPTH && nonNull.length < members.length) return null;
      return this.value(members[this.choose(members.length)], depth + 1, refs);
    }
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case 'string':
        return this.string(s);
      case 'number':
      case 'integer':
        return this.number(s);
      case 'boolean':
        return this.choose(2) === 0;
      case 'null':
        return null;
      case 'array': {
        const min = typeof s.minItems === 'number' ? s.minItems : 0;
        const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
        const want = refs >= RECURSION_DEPTH ? min : Math.max(min, 1 + this.choose(2));
        const n = Math.min(want, max);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(this.value((s.items ?? {}) as Schema, depth + 1, refs));
        return out;
      }
      case 'object': {
        const out: Record<string, unknown> = {};
        const props = (s.properties ?? {}) as Record<string, Schema>;
        const required = Array.isArray(s.required) ? (s.required as string[]) : Object.keys(props);
        for (const [k, v] of Object.entries(props)) {
          // An optional field: present at seed 0, else present or absent by the draw.
          if (!required.includes(k) && (refs >= RECURSION_DEPTH || this.choose(2) === 1)) continue;
          out[k] = this.value(v, depth + 1, refs);
        }
        if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
          out.key = this.value(s.additionalProperties as Schema, depth + 1, refs);
        }
        return out;
      }
    }
    return null;
  }

  private string(s: Schema): string {
    const min = typeof s.minLength === 'number' ? s.minLength : 0;
    const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
    const fits = (c: string): boolean => {
      const n = [...c].length;
      if (n < min || n > max) return false;
      return typeof s.pattern !== 'string' || (patternProblem(s.pattern) === undefined && testLinear(s.pattern, c));
    };
    const start = this.choose(STRING_CANDIDATES.length);
    for (let i = 0; i < STRING_CANDIDATES.length; i++) {
      const c = STRING_CANDIDATES[(start + i) % STRING_CANDIDATES.length];
      if (fits(c)) return c;
    }
    // No candidate matches the pattern: the right length at least (the validator reports the rest).
    const base = 'mock'.repeat(Math.ceil(Math.max(min, 1) / 4));
    return base.slice(0, Math.max(min, Math.min(4, max)));
  }

  private number(s: Schema): number {
    let lo = typeof s.minimum === 'number' ? s.minimum : -Infinity;
    let hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
    const step = typeof s.multipleOf === 'number' ? s.multipleOf : 1;
    if (typeof s.exclusiveMinimum === 'number') lo = Math.max(lo, s.exclusiveMinimum + step / 2);
    if (typeof s.exclusiveMaximum === 'number') hi = Math.min(hi, s.exclusiveMaximum - step / 2);
    const preferred = 1 + this.choose(5);
    let x = preferred;
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    x = Math.ceil(x / step) * step;
    if (x > hi) x -= step;
    return x;
  }

  /** `made`, or another value of `s` the predicates accept (a small search), or `made` after all. */
  private satisfying(s: Schema, checks: PredicateCheck[], made: unknown, depth: number, refs: number): unknown {
    const accepts = (v: unknown): boolean => checks.every((c) => runPredicate(c.predicate, fromReply(v, s, this.root)).ok);
    if (accepts(made)) return made;
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (type === 'number' || type === 'integer') {
      const lo = typeof s.minimum === 'number' ? s.minimum : -1000;
      const hi = typeof s.maximum === 'number' ? s.maximum : 1000;
      for (let i = 0; i <= 2000; i++) {
        const x = (i % 2 === 0 ? 1 : -1) * Math.ceil(i / 2);
        if (x >= lo && x <= hi && accepts(x)) return x;
      }
    }
    for (let i = 0; i < 50; i++) {
      const v = this.unchecked(s, depth, refs);
      if (accepts(v)) return v;
    }
    return made;
  }
}
