// Narrowing: what an `if` condition proves about a name (`x`) or a field read (`x.f`) in each
// branch. A null test (`x != null`, `x == null`) takes the `?` off; a discriminator test
// (`d.kind == "approve"`) or a type test (`call("type_of", d) == "Approve"`) picks the members of a
// struct union; `and` proves both sides in its `then` branch. And reading a field of a union: which
// members have it.
import type * as A from '../syntax/ast.js';
import { ANY, NULL, nonNull, unionOf, type StaticType } from './types.js';

/** What the analyzer knows: the type it gave an expression, and a struct's field types. */
export interface NarrowContext {
  typeOf(e: A.Expr): StaticType | undefined;
  fields(struct: string): ReadonlyMap<string, StaticType> | undefined;
}

export interface Narrowing {
  /** `x` or `x.f` (see `pathKey`) */
  key: string;
  then?: StaticType;
  else?: StaticType;
}

/** The key of a narrowable expression: a name, or a field of a name. */
export function pathKey(e: A.Expr): string | undefined {
  if (e.kind === 'Identifier') return e.name;
  if (e.kind === 'Member' && e.target.kind === 'Identifier') return `${e.target.name}.${e.name.name}`;
  return undefined;
}

export function narrowingsOf(cond: A.Expr, ctx: NarrowContext): Narrowing[] {
  if (cond.kind === 'Binary' && cond.op === 'and') {
    return [...narrowingsOf(cond.left, ctx), ...narrowingsOf(cond.right, ctx)].map((n) => ({ key: n.key, then: n.then }));
  }
  if (cond.kind === 'Unary' && cond.op === '!') {
    return narrowingsOf(cond.operand, ctx).map((n) => ({ key: n.key, then: n.else, else: n.then }));
  }
  if (cond.kind !== 'Binary' || (cond.op !== '==' && cond.op !== '!=')) return [];
  const found = equalityNarrowing(cond.left, cond.right, ctx) ?? equalityNarrowing(cond.right, cond.left, ctx);
  if (!found) return [];
  return [cond.op === '==' ? found : { key: found.key, then: found.else, else: found.then }];
}

/** What `subject == other` proves (then: equal, else: not equal). */
function equalityNarrowing(subject: A.Expr, other: A.Expr, ctx: NarrowContext): Narrowing | undefined {
  // x == null
  if (other.kind === 'Null') {
    const key = pathKey(subject);
    const t = ctx.typeOf(subject);
    if (!key || !t || t.kind !== 'Optional') return undefined;
    return { key, then: NULL, else: nonNull(t) };
  }
  if (other.kind !== 'String') return undefined;
  // call("type_of", x) == "Name"
  if (subject.kind === 'CallBuiltin' && subject.target.kind === 'String' && subject.target.value === 'type_of' && subject.args.length === 1) {
    const x = subject.args[0];
    const key = pathKey(x);
    const t = ctx.typeOf(x);
    if (!key || !t) return undefined;
    const members = structMembers(t);
    if (!members) return undefined;
    const hit = members.filter((m) => m.name === other.value);
    const rest = members.filter((m) => m.name !== other.value);
    return { key, then: hit.length > 0 ? unionOf(hit) : undefined, else: rest.length > 0 ? unionOf(rest) : undefined };
  }
  // x.kind == "approve"
  if (subject.kind === 'Member') {
    const x = subject.target;
    const key = pathKey(x);
    const t = ctx.typeOf(x);
    if (!key || !t) return undefined;
    const members = structMembers(t);
    if (!members) return undefined;
    const field = subject.name.name;
    const literal = (m: { name: string }): StaticType | undefined => ctx.fields(m.name)?.get(field);
    const can = (m: { name: string }): boolean => {
      const f = literal(m);
      if (!f) return false;
      if (f.kind === 'Literal') return f.value === other.value;
      if (f.kind === 'Enum') return f.values.includes(other.value);
      return true;
    };
    const only = (m: { name: string }): boolean => {
      const f = literal(m);
      return !!f && f.kind === 'Literal' && f.value === other.value;
    };
    const hit = members.filter(can);
    const rest = members.filter((m) => !only(m));
    return { key, then: hit.length > 0 ? unionOf(hit) : undefined, else: rest.length > 0 ? unionOf(rest) : undefined };
  }
  return undefined;
}

type StructType = Extract<StaticType, { kind: 'Struct' }>;

/** The struct members of a (possibly optional) union of structs, or of one struct; undefined otherwise. */
export function structMembers(t: StaticType): StructType[] | undefined {
  const inner = nonNull(t);
  if (inner.kind === 'Struct') return [inner];
  if (inner.kind === 'Union' && inner.members.every((m) => m.kind === 'Struct')) return inner.members;
  return undefined;
}

export type UnionField =
  | { ok: true; type: StaticType }
  | { ok: false; message: string; code: string };

/** Reading `.field` of a value of the union `t` (all struct members): the union of its types, or why not. */
export function unionField(t: Extract<StaticType, { kind: 'Union' }>, field: string, written: string, ctx: NarrowContext): UnionField {
  const members = t.members as StructType[];
  const having = members.filter((m) => ctx.fields(m.name)?.has(field));
  if (having.length === members.length) return { ok: true, type: unionOf(having.map((m) => ctx.fields(m.name)!.get(field) ?? ANY)) };
  const names = members.map((m) => m.name);
  if (having.length === 0) return { ok: false, message: `no member of ${names.join(' | ')} has a field \`${field}\``, code: 'unknown-field' };
  const discriminator = discriminatorOf(members, ctx);
  const how = discriminator
    ? `\`if ${written}.${discriminator.field} == ${JSON.stringify(discriminator.values[having[0].name])} { ... }\``
    : `\`if call("type_of", ${written}) == "${having[0].name}" { ... }\``;
  return {
    ok: false,
    message: `\`${field}\` is a field of ${having.map((m) => m.name).join(', ')} only, not of ${members.filter((m) => !having.includes(m)).map((m) => m.name).join(', ')}: narrow \`${written}\` first, e.g. ${how}`,
    code: 'union-field',
  };
}

/** A field whose type is a literal in every member (the union's discriminator), if there is one. */
export function discriminatorOf(members: StructType[], ctx: NarrowContext): { field: string; values: Record<string, unknown> } | undefined {
  const first = ctx.fields(members[0].name);
  if (!first) return undefined;
  for (const [field] of first) {
    const values: Record<string, unknown> = {};
    const ok = members.every((m) => {
      const f = ctx.fields(m.name)?.get(field);
      if (f?.kind !== 'Literal') return false;
      values[m.name] = f.value;
      return true;
    });
    if (ok && new Set(Object.values(values)).size === members.length) return { field, values };
  }
  return undefined;
}
