// The JSON Schema of a host tool's result, where the checker knows its one type
// (runtime/check/host-tools.ts: `math_random` a Num, `fs_list` a List<Str>, `env_get` a Str?):
// the form a person fills to settle that effect's unknown outcome or to edit its result in a
// what-if. A tool whose result depends on its arguments (ANY) has none: any JSON.
import { HOST_TOOL_RESULTS, type StaticType } from '../../runtime/index.js';

/** The schema of tool `name`'s result, or null when its type is not one the checker knows. */
export function toolResultSchema(name: string): object | null {
  const t = Object.hasOwn(HOST_TOOL_RESULTS, name) ? HOST_TOOL_RESULTS[name] : undefined;
  return t ? schemaOfStatic(t, 0) : null;
}

function schemaOfStatic(t: StaticType, depth: number): object | null {
  if (depth > 8) return null;
  switch (t.kind) {
    case 'Num':
      return { type: 'number' };
    case 'Str':
      return { type: 'string' };
    case 'Bool':
      return { type: 'boolean' };
    case 'Null':
    case 'Void':
      return { type: 'null' };
    case 'List': {
      const items = schemaOfStatic(t.element, depth + 1);
      return items ? { type: 'array', items } : { type: 'array' };
    }
    case 'Optional': {
      const inner = schemaOfStatic(t.inner, depth + 1);
      return inner ? { anyOf: [inner, { type: 'null' }] } : null;
    }
    case 'Enum':
      return { type: 'string', enum: [...t.values] };
    case 'Literal':
      return { const: t.value };
    default:
      return null;
  }
}
