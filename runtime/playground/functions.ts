// The functions of a Turn file the playground can run (docs/editor.md, *Playground*): each
// top-level `let NAME = turn(params) -> R { ... };`, read from the syntax alone (nothing runs), so
// the editor can put a Run lens on each as you type. Each parameter carries the JSON Schema of its
// type (the mapping `infer` and `turn mcp` use), which the input form is built from and the
// arguments are checked against.
import { typeToSchema, SchemaError, type JsonSchema } from '../infer/schema.js';
import { typeEnv } from '../mcp/serve/discover.js';
import { withoutPredicates } from '../infer/checks.js';
import type { Closure, Program } from '../syntax/ast.js';
import type { SourceFile } from '../syntax/source.js';

export interface PlayableParam {
  name: string;
  /** the type as written (`Str`, `List<Ticket>`, `"a" | "b"`), absent when untyped */
  type?: string;
  /** what an argument must be; `{}` (anything) for an untyped parameter or a type JSON cannot carry */
  schema: JsonSchema;
  /** a `T?` parameter: it may be left out (the function gets null) */
  optional: boolean;
  /** where the parameter is written: 1-based line and column */
  line: number;
  column: number;
}

export interface PlayableFunction {
  name: string;
  params: PlayableParam[];
  /** the return type as written, when declared */
  returns?: string;
  /** where its `let` starts: 1-based line and column, and 0-based UTF-16 line and character (VS Code's) */
  line: number;
  column: number;
  at: { line: number; character: number };
  /** the closure's span (UTF-16 offsets), so the entry can keep it and drop the rest */
  span: { start: number; end: number };
}

/**
 * The top-level functions of a parsed file, in source order. A name bound twice at the top level
 * is offered once, at its last binding (the one a call after the file's top level would reach).
 */
export function playableFunctions(program: Program, file: SourceFile): PlayableFunction[] {
  const env = typeEnv(program);
  const byName = new Map<string, PlayableFunction>();
  for (const s of program.body) {
    if (s.kind !== 'Let') continue;
    if (s.value.kind !== 'Closure') {
      byName.delete(s.name.name);
      continue;
    }
    const c: Closure = s.value;
    const p = file.position(s.span.start);
    byName.delete(s.name.name);
    byName.set(s.name.name, {
      name: s.name.name,
      params: c.params.map((param) => {
        let schema: JsonSchema = {};
        if (param.type) {
          try {
            schema = withoutPredicates(typeToSchema(param.type, env));
          } catch (e) {
            // a type no JSON value can be (a function type): the run itself refuses a wrong argument
            if (!(e instanceof SchemaError)) throw e;
          }
        }
        const at = file.position(param.span.start);
        return {
          name: param.name.name,
          ...(param.type ? { type: file.text.slice(param.type.span.start, param.type.span.end) } : {}),
          schema,
          optional: param.type?.kind === 'OptionalType',
          line: at.line,
          column: at.column,
        };
      }),
      ...(c.returnType ? { returns: file.text.slice(c.returnType.span.start, c.returnType.span.end) } : {}),
      line: p.line,
      column: p.column,
      at: file.utf16Position(s.span.start),
      span: { start: c.span.start, end: c.span.end },
    });
  }
  return [...byName.values()].sort((a, b) => a.span.start - b.span.start);
}

/**
 * The arguments of `fn` as one JSON Schema (the input form's): an object of its parameters by
 * name, each not `T?` required, no other property; each parameter's `$defs` gathered at the root,
 * where their `$ref`s point.
 */
export function argumentsSchema(fn: PlayableFunction): JsonSchema {
  const defs: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  for (const p of fn.params) {
    const { $schema: _dialect, $defs, ...body } = p.schema;
    Object.assign(defs, $defs as Record<string, unknown> | undefined);
    properties[p.name] = body;
  }
  return {
    type: 'object',
    properties,
    required: fn.params.filter((p) => !p.optional && p.type !== undefined).map((p) => p.name),
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}
