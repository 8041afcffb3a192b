// OpenAPI's `readOnly` and `writeOnly` in the types. A property the server sets (`readOnly`: an
// `id`, a `created_at`) is in what it answers and never in what a program sends; a `writeOnly` one
// (a `password`) is the other way round. One Turn struct cannot say both, so a struct with either
// kind of property (or holding, at any depth, a struct that has one) gets a second, request form:
//
//   Pet          what replies bind to: `id` (readOnly) as the spec says; `password` (writeOnly) `T?`,
//                and dropped from a reply that carries it (wire.ts: a server cannot hand the program
//                a value to send back under a write-only name)
//   PetRequest   what request bodies and parameters take: no `id` (a literal that sets it is a
//                located checker error), `password` required when the spec requires it
//
// The request form is used exactly where a value goes to the server (an operation's body and
// parameters), the reply form everywhere else, so `turn check` holds a program to both directions.
import type { StaticType } from '../check/types.js';
import { uniqueName } from './schema.js';
import type { AbsorbedField, AbsorbedOperation, AbsorbedStruct } from './types.js';

/** Adds the request form of every struct that needs one and retypes what operations send with them. */
export function addRequestForms(structs: AbsorbedStruct[], operations: AbsorbedOperation[], taken: Set<string>): void {
  // a reply never carries a writeOnly field, so the (reply) struct never requires it; its request form does as the spec says
  for (const s of structs) {
    for (const f of s.fields) {
      if (f.access !== 'writeOnly' || f.requestOptional !== undefined) continue;
      f.requestOptional = f.optional;
      f.optional = true;
    }
  }
  const byName = new Map<string, AbsorbedStruct>();
  for (const s of structs) if (!byName.has(s.name)) byName.set(s.name, s);
  const needs = needingRequestForm(structs, byName);
  if (needs.size === 0) return;
  const formName = new Map<string, string>();
  for (const name of needs) formName.set(name, uniqueName(`${name}Request`, taken));
  const retype = (t: StaticType): StaticType => requestType(t, formName);
  for (const name of needs) {
    const s = byName.get(name)!;
    const readOnly = s.fields.filter((f) => f.access === 'readOnly');
    const fields: AbsorbedField[] = s.fields
      .filter((f) => f.access !== 'readOnly')
      .map((f) => {
        const { requestOptional, ...rest } = f;
        return { ...rest, type: retype(f.type), ...(f.access === 'writeOnly' ? { optional: requestOptional ?? true } : {}) };
      });
    const left = readOnly.map((f) => `\`${f.name}\``).join(', ');
    const doc = [s.doc, `What a request sends as ${name}.${readOnly.length > 0 ? ` Read-only (set by the server, never sent): ${left}.` : ''}`].filter(Boolean).join('\n');
    structs.push({ name: formName.get(name)!, fields, doc, origin: s.origin, requestOf: { struct: name, readOnly: readOnly.map((f) => f.wireName) } });
  }
  for (const op of operations) {
    op.params = op.params.map((p) => ({ ...p, type: retype(p.type) }));
    if (op.body) op.body = { ...op.body, type: retype(op.body.type) };
  }
}

/** The structs with a readOnly field, a writeOnly one a request must give, or a field holding such a struct (a fixpoint). */
function needingRequestForm(structs: AbsorbedStruct[], byName: Map<string, AbsorbedStruct>): Set<string> {
  const out = new Set<string>();
  for (const s of structs) if (s.fields.some((f) => f.access === 'readOnly' || (f.access === 'writeOnly' && f.requestOptional === false))) out.add(s.name);
  for (let changed = out.size > 0; changed; ) {
    changed = false;
    for (const s of byName.values()) {
      if (out.has(s.name)) continue;
      if (s.fields.some((f) => namesStruct(f.type, out))) {
        out.add(s.name);
        changed = true;
      }
    }
  }
  return out;
}

function namesStruct(t: StaticType, names: Set<string>, depth = 0): boolean {
  if (depth > 64) return false;
  switch (t.kind) {
    case 'Struct':
      return names.has(t.name);
    case 'List':
      return namesStruct(t.element, names, depth + 1);
    case 'Optional':
      return namesStruct(t.inner, names, depth + 1);
    case 'Map':
      return !!t.value && namesStruct(t.value, names, depth + 1);
    case 'Union':
      return t.members.some((m) => namesStruct(m, names, depth + 1));
    default:
      return false;
  }
}

/** `t` with each struct that has a request form replaced by it (the same object when nothing changes). */
function requestType(t: StaticType, formName: Map<string, string>, depth = 0): StaticType {
  if (depth > 64) return t;
  switch (t.kind) {
    case 'Struct': {
      const form = formName.get(t.name);
      return form ? { kind: 'Struct', name: form } : t;
    }
    case 'List': {
      const e = requestType(t.element, formName, depth + 1);
      return e === t.element ? t : { kind: 'List', element: e };
    }
    case 'Optional': {
      const inner = requestType(t.inner, formName, depth + 1);
      return inner === t.inner ? t : { kind: 'Optional', inner };
    }
    case 'Map': {
      if (!t.value) return t;
      const value = requestType(t.value, formName, depth + 1);
      return value === t.value ? t : { kind: 'Map', value };
    }
    case 'Union': {
      const members = t.members.map((m) => requestType(m, formName, depth + 1));
      return members.every((m, i) => m === t.members[i]) ? t : { kind: 'Union', members };
    }
    default:
      return t;
  }
}
