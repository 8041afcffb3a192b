// What `infer` can ask a model for, as the checker sees it (the schema compiler,
// runtime/infer/schema.ts, refuses the same types at run time).
import { typeToString, type StaticType } from './types.js';

/** What `infer` cannot ask a model for, described for a message; undefined when the type is fine. */
export function unsupportedInferType(t: StaticType, structs: ReadonlyMap<string, { fields: ReadonlyMap<string, StaticType> }>, seen = new Set<string>()): string | undefined {
  switch (t.kind) {
    case 'Num':
    case 'Str':
    case 'Bool':
    case 'Enum':
    case 'Any':
    case 'Literal':
    case 'Null':
      return undefined;
    case 'Map':
      return t.value ? unsupportedInferType(t.value, structs, seen) : undefined;
    case 'Optional':
      return unsupportedInferType(t.inner, structs, seen);
    case 'Union':
      for (const m of t.members) {
        const bad = unsupportedInferType(m, structs, seen);
        if (bad) return bad;
      }
      return undefined;
    case 'List':
      return unsupportedInferType(t.element, structs, seen);
    case 'Struct': {
      if (seen.has(t.name)) return undefined;
      seen.add(t.name);
      const info = structs.get(t.name);
      for (const ft of info?.fields.values() ?? []) {
        const bad = unsupportedInferType(ft, structs, seen);
        if (bad) return bad;
      }
      return undefined;
    }
    default:
      return `a ${typeToString(t)}`;
  }
}
