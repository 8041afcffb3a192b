// Host tools reachable through `call("name", args...)`: `echo` and the Turn v1 list, string,
// map and JSON tools. Tools receive plain (unwrapped) arguments and never re-enter the VM. Each
// tool spends the run's allocation budget (`env.alloc`, runtime/vm/alloc.ts) on the values it
// makes, before it makes them when their size is known up front (`range`, `list_concat`).
import { listCost, mapCost, plainCost, textCost } from './alloc.js';
import { wireArguments, wireDecode, wireEncode } from '../absorb/wire.js';
import {
  ClosureVal, IdentityVal, Uncertain, VMError, containsIdentity, fromPlain, render, toJson, truthy, typeName, unwrap, equals, type Value,
} from '../values/index.js';

export interface ToolEnv {
  output(line: string): void;
  /** spends `n` units of the run's allocation budget; throws once it is exhausted */
  alloc(n: number): void;
}

export type Tool = (args: Value[], env: ToolEnv) => Value;

function arity(name: string, args: Value[], n: number, m = n): void {
  if (args.length < n || args.length > m) {
    const want = n === m ? `${n}` : `${n} to ${m}`;
    throw new VMError(`tool ${name} expects ${want} argument${m === 1 ? '' : 's'}, got ${args.length}`);
  }
}

function list(name: string, v: Value): Value[] {
  if (!Array.isArray(v)) throw new VMError(`tool ${name} expects a List, got ${typeName(v)}`);
  return v;
}

function str(name: string, v: Value): string {
  if (typeof v !== 'string') throw new VMError(`tool ${name} expects a Str, got ${typeName(v)}`);
  return v;
}

function num(name: string, v: Value): number {
  if (typeof v !== 'number') throw new VMError(`tool ${name} expects a Num, got ${typeName(v)}`);
  return v;
}

function map(name: string, v: Value): Map<string, Value> {
  if (!(v instanceof Map)) throw new VMError(`tool ${name} expects a Map, got ${typeName(v)}`);
  return v;
}

function index(name: string, l: Value[], i: Value, allowEnd = false): number {
  const n = num(name, i);
  if (!Number.isInteger(n) || n < 0 || n > l.length || (!allowEnd && n === l.length)) {
    throw new VMError(`tool ${name}: index ${n} out of range (length ${l.length})`);
  }
  return n;
}

/** Refuses a value that holds an identity handle anywhere inside it: it would leave as text. */
function noSecrets(v: Value, what = 'serialized'): void {
  if (containsIdentity(v)) throw new VMError(`an identity handle cannot be ${what}`);
}

/** Spends what a new list, map or string (`v`) costs and returns it. */
function made<T extends Value>(env: ToolEnv, v: T): T {
  env.alloc(typeof v === 'string' ? textCost(v.length) : Array.isArray(v) ? listCost(v.length) : v instanceof Map ? mapCost(v.size) : 0);
  return v;
}

/** The number of code points of `s`, without making an array of them. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The UTF-16 offset `k` code points after offset `i` of `s`. */
function offsetOf(s: string, k: number, i = 0): number {
  while (k > 0 && i < s.length) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff ? 2 : 1;
    k--;
  }
  return i;
}

/** `Array.prototype.slice`'s reading of a start or end index against a length. */
function sliceIndex(i: number, length: number): number {
  const n = Math.trunc(i) || 0;
  return n < 0 ? Math.max(0, length + n) : Math.min(n, length);
}

export const TOOLS: Record<string, Tool> = {
  echo(args, env) {
    for (const a of args) noSecrets(a, 'printed');
    env.output(made(env, args.map((a) => render(a)).join(' ')));
    return null;
  },
  len(args) {
    arity('len', args, 1);
    const v = args[0];
    if (typeof v === 'string') return codePoints(v);
    if (Array.isArray(v)) return v.length;
    if (v instanceof Map) return v.size;
    throw new VMError(`tool len expects a List, Str or Map, got ${typeName(v)}`);
  },
  list_push(args, env) {
    arity('list_push', args, 2);
    const l = list('list_push', args[0]);
    env.alloc(listCost(l.length + 1));
    return [...l, args[1]];
  },
  list_contains(args) {
    arity('list_contains', args, 2);
    return list('list_contains', args[0]).some((x) => equals(x, args[1]));
  },
  list_get(args) {
    arity('list_get', args, 2);
    const l = list('list_get', args[0]);
    return l[index('list_get', l, args[1])];
  },
  list_set(args, env) {
    arity('list_set', args, 3);
    const l = made(env, list('list_set', args[0]).slice());
    l[index('list_set', l, args[1])] = args[2];
    return l;
  },
  list_pop(args, env) {
    arity('list_pop', args, 1);
    return made(env, list('list_pop', args[0]).slice(0, -1));
  },
  list_last(args) {
    arity('list_last', args, 1);
    const l = list('list_last', args[0]);
    return l.length ? l[l.length - 1] : null;
  },
  list_concat(args, env) {
    arity('list_concat', args, 2);
    const a = list('list_concat', args[0]);
    const b = list('list_concat', args[1]);
    env.alloc(listCost(a.length + b.length));
    return a.concat(b);
  },
  list_slice(args, env) {
    arity('list_slice', args, 2, 3);
    const l = list('list_slice', args[0]);
    return made(env, l.slice(num('list_slice', args[1]), args.length > 2 ? num('list_slice', args[2]) : undefined));
  },
  list_reverse(args, env) {
    arity('list_reverse', args, 1);
    return made(env, list('list_reverse', args[0]).slice().reverse());
  },
  list_index_of(args) {
    arity('list_index_of', args, 2);
    return list('list_index_of', args[0]).findIndex((x) => equals(x, args[1]));
  },
  range(args, env) {
    arity('range', args, 1, 2);
    const [a, b] = args.length === 1 ? [0, num('range', args[0])] : [num('range', args[0]), num('range', args[1])];
    // spent before the list is made: `call("range", 1e9)` fails at once instead of filling memory
    env.alloc(listCost(b > a ? Math.ceil(b - a) : 0));
    const out: Value[] = [];
    for (let i = a; i < b; i++) out.push(i);
    return out;
  },
  str_split(args, env) {
    arity('str_split', args, 2);
    const s = str('str_split', args[0]);
    const parts = s.split(str('str_split', args[1]));
    env.alloc(listCost(parts.length) + textCost(s.length));
    return parts;
  },
  str_join(args, env) {
    arity('str_join', args, 1, 2);
    noSecrets(args[0], 'joined into a string');
    return made(env, list('str_join', args[0]).map((x) => render(x)).join(args.length > 1 ? str('str_join', args[1]) : ''));
  },
  str_contains(args) {
    arity('str_contains', args, 2);
    return str('str_contains', args[0]).includes(str('str_contains', args[1]));
  },
  str_replace(args, env) {
    arity('str_replace', args, 3);
    const s = str('str_replace', args[0]);
    const search = str('str_replace', args[1]);
    const replacement = str('str_replace', args[2]);
    if (search === '') {
      env.alloc(listCost(s.length)); // the code units, split apart
      return made(env, s.split('').join(replacement));
    }
    return made(env, s.replaceAll(search, () => replacement));
  },
  str_upper(args, env) {
    arity('str_upper', args, 1);
    return made(env, str('str_upper', args[0]).toUpperCase());
  },
  str_lower(args, env) {
    arity('str_lower', args, 1);
    return made(env, str('str_lower', args[0]).toLowerCase());
  },
  str_trim(args) {
    arity('str_trim', args, 1);
    return str('str_trim', args[0]).trim();
  },
  str_starts_with(args) {
    arity('str_starts_with', args, 2);
    return str('str_starts_with', args[0]).startsWith(str('str_starts_with', args[1]));
  },
  str_ends_with(args) {
    arity('str_ends_with', args, 2);
    return str('str_ends_with', args[0]).endsWith(str('str_ends_with', args[1]));
  },
  str_slice(args, env) {
    arity('str_slice', args, 2, 3);
    const s = str('str_slice', args[0]);
    const n = codePoints(s);
    const from = sliceIndex(num('str_slice', args[1]), n);
    const to = args.length > 2 ? sliceIndex(num('str_slice', args[2]), n) : n;
    if (to <= from) return '';
    const start = offsetOf(s, from);
    return made(env, s.slice(start, offsetOf(s, to - from, start)));
  },
  url_encode(args, env) {
    arity('url_encode', args, 1);
    return made(env, encodeURIComponent(str('url_encode', args[0])));
  },
  to_string(args, env) {
    arity('to_string', args, 1);
    noSecrets(args[0], 'turned into a string');
    if (args[0] instanceof IdentityVal) throw new VMError('an identity handle cannot be converted to a string');
    return typeof args[0] === 'string' ? args[0] : made(env, render(args[0]));
  },
  to_number(args) {
    arity('to_number', args, 1);
    const v = args[0];
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string' && v.trim() !== '') {
      const n = Number(v);
      return Number.isNaN(n) ? null : n;
    }
    return null;
  },
  type_of(args) {
    arity('type_of', args, 1);
    return typeName(args[0]);
  },
  keys(args, env) {
    arity('keys', args, 1);
    return made(env, [...map('keys', args[0]).keys()]);
  },
  values(args, env) {
    arity('values', args, 1);
    return made(env, [...map('values', args[0]).values()]);
  },
  map_get(args) {
    arity('map_get', args, 2);
    return map('map_get', args[0]).get(str('map_get', args[1])) ?? null;
  },
  map_set(args, env) {
    arity('map_set', args, 3);
    const m = made(env, new Map(map('map_set', args[0])));
    m.set(str('map_set', args[1]), args[2]);
    return m;
  },
  map_has(args) {
    arity('map_has', args, 2);
    return map('map_has', args[0]).has(str('map_has', args[1]));
  },
  map_remove(args, env) {
    arity('map_remove', args, 2);
    const m = made(env, new Map(map('map_remove', args[0])));
    m.delete(str('map_remove', args[1]));
    return m;
  },
  json_parse(args, env) {
    arity('json_parse', args, 1);
    let plain: unknown;
    try {
      plain = JSON.parse(str('json_parse', args[0]));
    } catch (e) {
      if (e instanceof VMError) throw e;
      throw new VMError(`json_parse: ${(e as Error).message}`);
    }
    env.alloc(plainCost(plain)); // before the Turn value is made
    return fromPlain(plain);
  },
  json_stringify(args, env) {
    arity('json_stringify', args, 1);
    noSecrets(args[0]);
    return made(env, JSON.stringify(toJson(args[0])));
  },
  // an absorbed API's values to and from the wire's names (runtime/absorb/wire.ts): they take Turn
  // values as they are, so a struct (which fills the fields it was not given) differs from a map
  wire_encode(args, env) {
    arity('wire_encode', args, 3);
    return wireEncode(args[0], args[1], args[2], (n) => env.alloc(mapCost(n)));
  },
  wire_decode(args, env) {
    arity('wire_decode', args, 3);
    return wireDecode(args[0], args[1], args[2], (n) => env.alloc(mapCost(n)));
  },
  wire_arguments(args, env) {
    arity('wire_arguments', args, 4);
    return wireArguments(args[0], args[1], args[2], args[3], (n) => env.alloc(mapCost(n)));
  },
  abs: (args) => (arity('abs', args, 1), Math.abs(num('abs', args[0]))),
  floor: (args) => (arity('floor', args, 1), Math.floor(num('floor', args[0]))),
  ceil: (args) => (arity('ceil', args, 1), Math.ceil(num('ceil', args[0]))),
  round: (args) => (arity('round', args, 1), Math.round(num('round', args[0]))),
  sqrt: (args) => (arity('sqrt', args, 1), Math.sqrt(num('sqrt', args[0]))),
  min: (args) => (args.length === 0 ? null : Math.min(...args.map((a) => num('min', a)))),
  max: (args) => (args.length === 0 ? null : Math.max(...args.map((a) => num('max', a)))),
  // tests (docs/testing.md): a failure is a run-time error located at the assert's call
  assert(args) {
    arity('assert', args, 1, 2);
    if (truthy(args[0])) return null;
    throw new VMError(`assertion failed${args.length > 1 ? `: ${typeof args[1] === 'string' ? args[1] : render(args[1])}` : ''}`);
  },
  assert_eq(args) {
    arity('assert_eq', args, 2, 3);
    if (equals(args[0], args[1])) return null;
    const what = args.length > 2 ? `: ${typeof args[2] === 'string' ? args[2] : render(args[2])}` : '';
    throw new VMError(`assertion failed${what}: expected ${render(args[1], true, 500)}, got ${render(args[0], true, 500)}`);
  },
};

/** Tool arguments are plain values: the confidence of an argument does not reach the host. */
export function toolArgs(args: Value[]): Value[] {
  return args.map((a) => (a instanceof Uncertain ? a.v : a));
}

export function isCallable(v: Value): v is ClosureVal {
  return unwrap(v) instanceof ClosureVal;
}
