// What a served file offers (docs/mcp.md, *Serving a Turn program*): the map its top level returns,
// read from the source without running it. Each entry is a closure, and its key says what it is:
//
//   "NAME"                 a tool (letters, digits, _ . -, at most 128)
//   "prompt:NAME"          a prompt; its parameters are the prompt's arguments (Str, Str?, or a
//                          union of string literals, whose values are offered as completions)
//   "resource:URI"         a resource; a URI with `{name}` parts is a resource template, each part
//                          a Str parameter of the closure
//   "task:NAME"            a tool that may run as a task (2026-07-28's tasks extension: a client
//                          that declared it gets a task to poll, another the call's result)
//   "task-required:NAME"   a tool that only runs as a task (a client without the extension is refused)
//
// A tool's input schema is made from its parameter types (a `T?` parameter is optional), its output
// schema from its return type (runtime/infer/schema.ts, the mapping `infer` uses), both JSON Schema
// 2020-12 as written (`$schema`, `$defs`, `additionalProperties: false`); its description is the
// `///` comment before the entry (or before the `let` that binds its closure); its annotations
// come from what the closure can do (annotations.ts).
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { checkSource } from '../../check/index.js';
import { formatDiagnostic } from '../../diagnostics.js';
import { typeToSchema, parametersSchema, SchemaError, type JsonSchema, type StructInfo, type TypeEnv } from '../../infer/schema.js';
import { withoutPredicates } from '../../infer/checks.js';
import { readSourceText } from '../../load.js';
import type { Closure, Expr, Program, TypeExpr } from '../../syntax/ast.js';
import { annotationsOf } from './annotations.js';
import { docCommentBefore } from '../../syntax/doc-comment.js';

/** A file that cannot be served, with a located message. */
export class ServeError extends Error {}

export interface ServedParam {
  name: string;
  schema: JsonSchema;
  /** a `T?` parameter: it may be left out (the closure gets null) */
  optional: boolean;
  /** the values a string-literal union parameter takes (offered as completions) */
  choices?: string[];
}

interface ServedBase {
  /** the entry's key in the returned map: how a call reaches its closure */
  key: string;
  params: ServedParam[];
  description: string;
}

export interface ServedTool extends ServedBase {
  /** the MCP tool name */
  name: string;
  inputSchema: Tool['inputSchema'];
  outputSchema?: Tool['outputSchema'];
  annotations: ToolAnnotations;
  /** whether a call may (optional) or must (required) run as a task (serve-next/tasks.ts); none: never */
  taskSupport?: 'optional' | 'required';
}

export interface ServedPrompt extends ServedBase {
  name: string;
}

export interface ServedResource extends ServedBase {
  /** the URI, or the URI template (RFC 6570 level 1: `{name}` parts) */
  uri: string;
  name: string;
  /** for a template: its literal pieces and variable names, alternating, literal first */
  template?: { literals: string[]; vars: string[] };
}

export interface Served {
  tools: ServedTool[];
  prompts: ServedPrompt[];
  resources: ServedResource[];
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const SHAPE = 'a served file returns a map of closures at its top level: return {"tool_name": turn(x: Str) -> Str { ... }, ...};';

export function typeEnv(program: Program): TypeEnv {
  const structs = new Map<string, StructInfo>();
  const aliases = new Map<string, TypeExpr>();
  for (const s of program.body) {
    if (s.kind === 'Struct') {
      structs.set(s.name.name, {
        name: s.name.name,
        typeParams: s.typeParams.map((p) => p.name),
        fields: s.fields.map((f) => ({ name: f.name.name, type: f.type, ...(f.description !== undefined ? { description: f.description } : {}), checks: f.checks })),
        ...(s.description !== undefined ? { description: s.description } : {}),
      });
    } else if (s.kind === 'TypeAlias') aliases.set(s.name.name, s.type);
  }
  return { struct: (n) => structs.get(n), alias: (n) => aliases.get(n) };
}

export { docCommentBefore } from '../../syntax/doc-comment.js';


/** Splits a URI template into literals and `{name}` variables; undefined when it has none. Throws a message. */
export function parseTemplate(uri: string): { literals: string[]; vars: string[] } | undefined {
  const literals: string[] = [];
  const vars: string[] = [];
  let at = 0;
  for (;;) {
    const open = uri.indexOf('{', at);
    if (open < 0) break;
    const close = uri.indexOf('}', open);
    const name = close < 0 ? '' : uri.slice(open + 1, close);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`"${uri}" is not a URI template this server reads: a variable is written {name}`);
    literals.push(uri.slice(at, open));
    vars.push(name);
    at = close + 1;
  }
  if (vars.length === 0) return undefined;
  literals.push(uri.slice(at));
  if (literals.slice(1, -1).some((l) => l === '')) throw new Error(`"${uri}": two variables of a URI template must be separated by text`);
  return { literals, vars };
}

/** The variables' values when `uri` matches `template`, else undefined. A plain scan (the URI is the client's): a value is never empty and holds no `/`. */
export function matchTemplate(template: { literals: string[]; vars: string[] }, uri: string): Record<string, string> | undefined {
  const { literals, vars } = template;
  if (!uri.startsWith(literals[0])) return undefined;
  let at = literals[0].length;
  const values: Record<string, string> = {};
  for (let i = 0; i < vars.length; i++) {
    const next = literals[i + 1];
    const end = next === '' ? uri.length : uri.indexOf(next, at + 1);
    if (end <= at) return undefined;
    const value = uri.slice(at, end);
    if (value.includes('/')) return undefined;
    try {
      values[vars[i]] = decodeURIComponent(value);
    } catch {
      return undefined; // a malformed %-escape: no resource has that name
    }
    at = end + next.length;
  }
  return at === uri.length ? values : undefined;
}

/** What `file` serves. Throws ServeError (located) or InputError. */
export async function discoverServed(file: string): Promise<Served> {
  const text = readSourceText(file);
  const checked = await checkSource(file, text, { fetch: false });
  const error = checked.diagnostics.find((d) => d.severity === 'error');
  if (error) throw new ServeError(formatDiagnostic(checked.file, error));
  const program = checked.program;
  const where = (offset: number): string => {
    const p = checked.file.position(offset);
    return `${file}:${p.line}:${p.column}`;
  };
  const returns = program.body.filter((s) => s.kind === 'Return');
  const last = returns[returns.length - 1];
  if (!last || last.kind !== 'Return' || !last.value) throw new ServeError(`${where(program.span.end)}: nothing to serve: ${SHAPE}`);
  if (last.value.kind !== 'Map') throw new ServeError(`${where(last.value.span.start)}: ${SHAPE}`);
  const lets = new Map<string, Expr>();
  const letAt = new Map<string, number>();
  for (const s of program.body) {
    if (s.kind === 'Let') {
      lets.set(s.name.name, s.value);
      letAt.set(s.name.name, s.span.start);
    }
  }
  const env = typeEnv(program);
  const served: Served = { tools: [], prompts: [], resources: [] };
  for (const entry of last.value.entries) {
    let value = entry.value;
    let doc = docCommentBefore(text, entry.span.start);
    if (value.kind === 'Identifier') {
      const name = value.name;
      doc ??= letAt.has(name) ? docCommentBefore(text, letAt.get(name)!) : undefined;
      value = lets.get(name) ?? value;
    }
    if (value.kind !== 'Closure') throw new ServeError(`${where(entry.value.span.start)}: "${entry.key}" must be a closure to be served as a tool, a prompt or a resource: turn(...) { ... }`);
    const c = value;
    const at = where(entry.span.start);
    const params = (what: string) => paramsOf(c, env, where, `${what} "${entry.key}"`);
    if (entry.key.startsWith('prompt:')) {
      const name = entry.key.slice('prompt:'.length);
      if (!NAME.test(name)) throw new ServeError(`${at}: "${name}" is not a prompt name (letters, digits, _ . -, at most 128)`);
      const ps = params('the prompt');
      for (const p of ps) {
        if (p.schema.type !== 'string' && !p.choices && !(p.optional && isNullableString(p.schema))) {
          throw new ServeError(`${at}: the argument \`${p.name}\` of the prompt "${name}" must be a Str (or Str?, or a union of string literals): MCP passes a prompt's arguments as strings`);
        }
      }
      served.prompts.push({ key: entry.key, name, params: ps, description: doc ?? `the prompt ${name}` });
    } else if (entry.key.startsWith('resource:')) {
      const uri = entry.key.slice('resource:'.length);
      let template;
      try {
        new URL(uri.replace(/[{}]/g, ''));
        template = parseTemplate(uri);
      } catch (e) {
        throw new ServeError(`${at}: ${e instanceof TypeError ? `"${uri}" is not a URI (a resource is "resource:scheme://...")` : (e as Error).message}`);
      }
      const ps = params('the resource');
      const vars = template?.vars ?? [];
      const names = ps.map((p) => p.name);
      if (names.length !== vars.length || vars.some((v) => !names.includes(v))) {
        throw new ServeError(`${at}: the closure of the resource "${uri}" takes ${vars.length === 0 ? 'no parameters' : `the URI template's variables (${vars.join(', ')}) as its parameters`}`);
      }
      served.resources.push({ key: entry.key, uri, name: uri, params: ps, description: doc ?? `the resource ${uri}`, ...(template ? { template } : {}) });
    } else if (entry.key.startsWith('task:') || entry.key.startsWith('task-required:')) {
      const required = entry.key.startsWith('task-required:');
      const name = entry.key.slice(required ? 'task-required:'.length : 'task:'.length);
      if (!NAME.test(name)) throw new ServeError(`${at}: "${name}" is not an MCP tool name (letters, digits, _ . -, at most 128)`);
      if (served.tools.some((t) => t.name === name)) throw new ServeError(`${at}: the tool "${name}" is served twice`);
      const description = doc ?? `${name} (a Turn program; each call is a run, a task for a client of the tasks extension)`;
      served.tools.push({ ...servedTool(entry.key, c, params('tool'), env, where, lets, doc), name, description, taskSupport: required ? 'required' : 'optional' });
    } else {
      if (!NAME.test(entry.key)) throw new ServeError(`${at}: "${entry.key}" is not an MCP tool name (letters, digits, _ . -, at most 128), nor "prompt:NAME", "resource:URI" or "task:NAME"`);
      if (served.tools.some((t) => t.name === entry.key)) throw new ServeError(`${at}: the tool "${entry.key}" is served twice`);
      served.tools.push(servedTool(entry.key, c, params('tool'), env, where, lets, doc));
    }
  }
  if (served.tools.length + served.prompts.length + served.resources.length === 0) throw new ServeError(`${where(last.value.span.start)}: the map holds no closures: ${SHAPE}`);
  return served;
}

const isNullableString = (s: JsonSchema): boolean => Array.isArray(s.anyOf) && (s.anyOf as JsonSchema[]).some((m) => m.type === 'string');

/** The schema of a type for a client: located ServeError when it has none. */
function schemaFor(t: TypeExpr, env: TypeEnv, at: string, what: string): JsonSchema {
  try {
    return withoutPredicates(typeToSchema(t, env));
  } catch (e) {
    if (e instanceof SchemaError) throw new ServeError(`${at}: ${what} cannot be described to an MCP client: ${e.message}`);
    throw e;
  }
}

function paramsOf(c: Closure, env: TypeEnv, where: (offset: number) => string, what: string): ServedParam[] {
  return c.params.map((p) => {
    const schema = p.type ? schemaFor(p.type, env, where(p.span.start), `the parameter \`${p.name.name}\` of ${what}`) : {};
    const inner = p.type?.kind === 'OptionalType' ? p.type.inner : p.type;
    const choices = inner?.kind === 'EnumType' ? [...inner.values] : undefined;
    return { name: p.name.name, schema, optional: p.type?.kind === 'OptionalType', ...(choices ? { choices } : {}) };
  });
}

/**
 * The input schema of a tool: an object of its parameters, every one not `T?` required, no other
 * property allowed. Each parameter's `$defs` are gathered at the root (their `$ref`s point there),
 * and a parameter whose type is a struct refers to it in `$defs` by the struct's name, so a
 * struct two parameters share is described once.
 */
function inputSchemaOf(c: Closure, params: ServedParam[], env: TypeEnv): Tool['inputSchema'] {
  const defs: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  params.forEach((p, i) => {
    const { $schema: _dialect, $defs, ...body } = p.schema;
    Object.assign(defs, $defs as Record<string, unknown> | undefined);
    const t = c.params[i].type;
    const named = t?.kind === 'OptionalType' ? t.inner : t;
    const struct = named?.kind === 'NamedType' && named.args.length === 0 ? env.struct(named.name) : undefined;
    if (named && struct && struct.typeParams.length === 0 && body.$ref === undefined) {
      if (!(struct.name in defs)) {
        // the struct's own schema (not the parameter's, which is nullable when optional)
        const { $schema: _d, $defs: more, ...structBody } = withoutPredicates(typeToSchema(named, env));
        Object.assign(defs, more as Record<string, unknown> | undefined);
        defs[struct.name] = structBody;
      }
      const ref = { $ref: `#/$defs/${struct.name}` };
      properties[p.name] = p.optional ? { anyOf: [ref, { type: 'null' }] } : ref;
    } else properties[p.name] = body;
  });
  return parametersSchema(properties, params, defs) as Tool['inputSchema'];
}

function servedTool(key: string, c: Closure, params: ServedParam[], env: TypeEnv, where: (offset: number) => string, lets: ReadonlyMap<string, Expr>, doc: string | undefined): ServedTool {
  const out = c.returnType ? schemaFor(c.returnType, env, where(c.returnType.span.start), `the return type of "${key}"`) : undefined;
  // MCP's structuredContent is an object: a tool returning a struct or a map has an output schema
  // (without `$schema`: the SDK 1.x client validates it with a draft-07 Ajv, which refuses the 2020-12 dialect's URI)
  const outputSchema = out && out.type === 'object' ? (Object.fromEntries(Object.entries(out).filter(([k]) => k !== '$schema')) as Tool['outputSchema']) : undefined;
  return {
    key,
    name: key,
    params,
    inputSchema: inputSchemaOf(c, params, env),
    ...(outputSchema ? { outputSchema } : {}),
    description: doc ?? `${key} (a Turn program; each call is a run)`,
    annotations: annotationsOf(c, lets),
  };
}
