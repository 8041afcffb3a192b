// Calling conventions the interpreter applies when it enters a function: parameter checks of
// declared types, and Turn v1's binding of a single argument to several parameters.
import type { FunctionProto } from '../compile/bundle.js';
import { Check } from '../compile/opcodes.js';
import { StructVal, Uncertain, VMError, confidenceOf, typeName, unwrap, withConfidence, type Value } from '../values/index.js';

export function checkParam(v: Value, check: number): boolean {
  if (v instanceof Uncertain) v = v.v;
  if (check > 15) {
    // `List<T>`: a list whose every element passes T's check
    if (!Array.isArray(v)) return false;
    const element = check >> 4;
    for (const x of v) if (!checkParam(x, element)) return false;
    return true;
  }
  switch (check) {
    case Check.NUM:
      return typeof v === 'number';
    case Check.STR:
      return typeof v === 'string';
    case Check.BOOL:
      return typeof v === 'boolean';
    case Check.LIST:
      return Array.isArray(v);
    case Check.MAP:
      return v instanceof Map;
  }
  return true;
}

/**
 * Turn v1's calling convention for `call(f, x)` with one argument: a closure of no parameters
 * ignores it; a list spreads over two or more parameters, and a one-element list over one
 * (unless that parameter is declared a List and the element is not a list); a map or struct binds two or more parameters by name
 * (a missing name is null), and one parameter by name when it has that key and the parameter is
 * not declared a Map or that struct. Returns the arguments to pass, or null to pass `x` as it is.
 */
export function singleArgument(proto: FunctionProto, arg: Value): Value[] | null {
  if (proto.method) return null;
  const n = proto.arity;
  if (n === 0) return [];
  const c = arg instanceof Uncertain ? arg.c : 1;
  const keep = (x: Value): Value => (c < 1 ? withConfidence(x, Math.min(c, confidenceOf(x))) : x);
  const u = unwrap(arg);
  const first = proto.params[0];
  if (Array.isArray(u)) {
    if (n > 1) return u.map(keep);
    if (u.length !== 1) return null;
    const listParam = first.check === Check.LIST || first.check > 15;
    return !listParam || Array.isArray(unwrap(u[0])) ? [keep(u[0])] : null;
  }
  const fields = u instanceof Map ? u : u instanceof StructVal ? u.fields : null;
  if (!fields) return null;
  if (proto.required !== undefined) {
    // a closure that counts its arguments: a name the map does not have is left out, not null
    const named = proto.params.slice(0, -1);
    return [...named.map((p) => keep(fields.get(p.name) ?? null)), named.map((p) => fields.has(p.name))];
  }
  if (n > 1) return proto.params.map((p) => keep(fields.get(p.name) ?? null));
  if (first.check === Check.MAP || (u instanceof StructVal && first.type === u.type) || !fields.has(first.name)) return null;
  return [keep(fields.get(first.name)!)];
}

/** What a value that fails `check` is, naming the first wrong element of a typed list. */
export function describeMismatch(v: Value, check: number): string {
  const u = unwrap(v);
  if (check > 15 && Array.isArray(u)) {
    const i = u.findIndex((x) => !checkParam(x, check >> 4));
    if (i >= 0) return `a List whose element ${i} is ${describeMismatch(u[i], check >> 4)}`;
  }
  return typeName(v);
}


/**
 * The arguments of a call to a closure that counts them (FunctionProto.required), laid out at
 * stack[at ..]: the parameters the call left out are filled with null, and the last parameter,
 * `arguments_given`, gets whether each one before it was given. `given` is how many the call
 * passed: from `required` to all of them, or all and the list itself (Turn v1's `call(f, map)`,
 * which names the ones it gives). Returns the arity.
 */
export function countArguments(proto: FunctionProto, stack: Value[], at: number, given: number): number {
  const named = proto.arity - 1;
  const required = proto.required ?? named;
  if (given === proto.arity) {
    const list = unwrap(stack[at + named]);
    if (Array.isArray(list) && list.length === named && list.every((b) => typeof b === 'boolean')) return proto.arity;
  }
  if (given < required || given > named) {
    const want = required === named ? `${named}` : `${required} to ${named}`;
    throw new VMError(`${proto.name} expects ${want} argument${named === 1 ? '' : 's'}, got ${given}`);
  }
  for (let i = given; i < named; i++) stack[at + i] = null;
  stack[at + named] = Array.from({ length: named }, (_, i) => i < given);
  return proto.arity;
}
