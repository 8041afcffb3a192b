// `turn gen ts FILE.tn --out DIR` (docs/embedding.md, *A typed client*): a TypeScript module an app
// imports to call a Turn module's exported closures like functions. A module's exports are the map
// its top level returns (runtime/check/modules.ts); each closure in it becomes one async function,
// each struct and type alias of the file one TypeScript type. The module holds each function's
// JSON Schemas (the parameters', the return type's: runtime/infer/schema.ts, the mapping `infer`
// and `turn mcp` use), which `callExport` checks the arguments and the result against at run time,
// so a value that breaks the declared types never crosses the boundary either way.
//
// The generated module is ESM: it finds the Turn file relative to itself (`import.meta.url`).
import * as path from 'node:path';
import { checkSource } from '../check/index.js';
import { formatDiagnostic } from '../diagnostics.js';
import { typeToSchema, SchemaError, type JsonSchema, type TypeEnv } from '../infer/schema.js';
import { readSourceText } from '../load.js';
import { docCommentBefore, typeEnv } from '../mcp/serve/discover.js';
import { withoutPredicates } from '../infer/checks.js';
import type { Closure, Expr, Program, TypeExpr } from '../syntax/ast.js';
import { sha256Hex } from '../hash.js';
import { TurnError } from './errors.js';

/** The package the generated module imports the library from. */
export const DEFAULT_IMPORT = 'turn-vscode';

export interface GenOptions {
  /** the folder the module is written to (its import of the Turn file is relative to it) */
  outDir: string;
  /** where the library is imported from (default DEFAULT_IMPORT) */
  importFrom?: string;
}

export interface Generated {
  /** the module's file name in `outDir` (`FILE.ts` for `FILE.tn`) */
  fileName: string;
  text: string;
  /** the exported functions, by Turn key */
  functions: { key: string; name: string }[];
  /** the exports that are not closures, left out */
  skipped: string[];
}

const TS_RESERVED = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null ' +
    'return super switch this throw true try typeof var void while with as implements interface let package private protected public static yield await ' +
    'any boolean number string symbol unknown never object undefined').split(' '),
);

/** A TypeScript identifier for a Turn key (`summarize-ticket` → `summarizeTicket`). */
function identifierFor(key: string): string {
  let id = key.replace(/[^A-Za-z0-9_$]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));
  if (id === '' || /^[0-9]/.test(id)) id = `_${id}`;
  return TS_RESERVED.has(id) ? `${id}_` : id;
}

/** A string as a TypeScript string literal (JSON's escapes are TypeScript's). */
const str = (s: string): string => JSON.stringify(s);

/** A doc comment (`///` text) as JSDoc, with `*​/` defused. */
function jsdoc(text: string | undefined, indent = ''): string {
  if (text === undefined) return '';
  return `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n`;
}

class Emitter {
  constructor(
    private readonly env: TypeEnv,
    private readonly where: (offset: number) => string,
  ) {}

  /** The TypeScript type of a Turn type (located TurnError for one that cannot cross to TypeScript). */
  ts(t: TypeExpr, typeParams: readonly string[] = []): string {
    switch (t.kind) {
      case 'EnumType':
        return t.values.map(str).join(' | ');
      case 'LiteralType':
        return t.value === null ? 'null' : typeof t.value === 'string' ? str(t.value) : String(t.value);
      case 'OptionalType':
        return `${this.wrap(t.inner, typeParams)} | null`;
      case 'UnionType':
        return t.members.map((m) => this.wrap(m, typeParams)).join(' | ');
      case 'FunctionType':
        throw new TurnError('invalid', `${this.where(t.span.start)}: a function type cannot cross to TypeScript (only data does)`);
      case 'NamedType':
        break;
    }
    const args = t.args.map((a) => this.ts(a, typeParams));
    switch (t.name) {
      case 'Num':
        return 'number';
      case 'Str':
        return 'string';
      case 'Bool':
        return 'boolean';
      case 'Any':
        return 'unknown';
      case 'Void':
        return 'null';
      case 'List':
        return args.length > 0 ? `Array<${args[0]}>` : 'unknown[]';
      case 'Map':
        return `Record<string, ${args.length > 1 ? args[1] : 'unknown'}>`;
      case 'Vec':
        return 'number[]';
      case 'Pid':
      case 'Identity':
        throw new TurnError('invalid', `${this.where(t.span.start)}: a ${t.name} cannot cross to TypeScript (only data does)`);
    }
    if (typeParams.includes(t.name)) return t.name;
    if (!this.env.struct(t.name) && !this.env.alias(t.name)) {
      throw new TurnError('invalid', `${this.where(t.span.start)}: the type ${t.name} is not declared in this file (a client's types are the file's own structs and type aliases)`);
    }
    return args.length > 0 ? `${t.name}<${args.join(', ')}>` : t.name;
  }

  private wrap(t: TypeExpr, typeParams: readonly string[]): string {
    const s = this.ts(t, typeParams);
    return t.kind === 'UnionType' || t.kind === 'EnumType' || t.kind === 'OptionalType' ? `(${s})` : s;
  }

  schema(t: TypeExpr | undefined, what: string): JsonSchema {
    if (!t) return {};
    try {
      const { $schema: _dialect, ...body } = withoutPredicates(typeToSchema(t, this.env));
      return body;
    } catch (e) {
      if (e instanceof SchemaError) throw new TurnError('invalid', `${this.where(t.span.start)}: ${what} has no JSON Schema: ${e.message}`);
      throw e;
    }
  }
}

/** The map of the file's top-level `return`, with each entry's closure (a `let` bound one too). */
function exportsOf(program: Program, where: (offset: number) => string): { key: string; closure: Closure | undefined; at: number }[] {
  const returns = program.body.filter((s) => s.kind === 'Return');
  const last = returns[returns.length - 1];
  const shape = 'a module exports the map its top level returns: return {"name": turn(x: Str) -> Str { ... }, ...};';
  if (!last || last.kind !== 'Return' || !last.value) throw new TurnError('invalid', `${where(program.span.end)}: nothing is exported: ${shape}`);
  if (last.value.kind !== 'Map') throw new TurnError('invalid', `${where(last.value.span.start)}: ${shape}`);
  const lets = new Map<string, Expr>();
  for (const s of program.body) if (s.kind === 'Let') lets.set(s.name.name, s.value);
  return last.value.entries.map((entry) => {
    let value: Expr | undefined = entry.value;
    if (value.kind === 'Identifier') value = lets.get(value.name);
    return { key: entry.key, closure: value?.kind === 'Closure' ? value : undefined, at: entry.span.start };
  });
}

/** The `let` that binds a closure by name, for its doc comment. */
function letOffset(program: Program, closure: Closure): number | undefined {
  for (const s of program.body) if (s.kind === 'Let' && s.value === closure) return s.span.start;
  return undefined;
}

/** Generates the client of the Turn module `file`. Throws TurnError (located) for a file it cannot describe. */
export async function generateClient(file: string, options: GenOptions): Promise<Generated> {
  let text: string;
  try {
    text = readSourceText(file);
  } catch (e) {
    throw new TurnError('input', e instanceof Error ? e.message : String(e));
  }
  const checked = await checkSource(file, text, { fetch: false });
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new TurnError('compile', `${file} does not compile`, errors.map((d) => formatDiagnostic(checked.file, d)));
  const program = checked.program;
  const where = (offset: number): string => {
    const p = checked.file.position(offset);
    return `${file}:${p.line}:${p.column}`;
  };
  const env = typeEnv(program);
  const emit = new Emitter(env, where);
  const out: string[] = [];
  const base = path.basename(file).replace(/\.tn$/, '');
  const fromOut = path.relative(path.resolve(options.outDir), path.resolve(file)).split(path.sep).join('/');
  out.push(
    `// Generated by \`turn gen ts ${path.basename(file)}\` from ${str(fromOut).slice(1, -1)} (sha256 ${sha256Hex(text).slice(0, 16)}): do not edit.`,
    '// Regenerate when the Turn file changes (`turn gen ts FILE --out DIR --watch`). docs/embedding.md',
    "import { fileURLToPath } from 'node:url';",
    `import { callExport, type CallOptions, type CallResult } from ${str(options.importFrom ?? DEFAULT_IMPORT)};`,
    '',
    '/** The Turn module this client calls (found beside this file). */',
    `export const TURN_FILE: string = fileURLToPath(new URL(${str(fromOut)}, import.meta.url));`,
    '',
  );
  // types: every struct and type alias of the file, in source order
  for (const s of program.body) {
    if (s.kind === 'Struct') {
      const params = s.typeParams.map((p) => p.name);
      out.push(`${jsdoc(s.description)}export interface ${s.name.name}${params.length > 0 ? `<${params.map((p) => `${p} = unknown`).join(', ')}>` : ''} {`);
      for (const f of s.fields) {
        const optional = f.type.kind === 'OptionalType';
        out.push(`${jsdoc(f.description, '  ')}  ${f.name.name}${optional ? '?' : ''}: ${emit.ts(f.type, params)};`);
      }
      out.push('}', '');
    } else if (s.kind === 'TypeAlias') {
      out.push(`export type ${s.name.name} = ${emit.ts(s.type)};`, '');
    }
  }
  const functions: Generated['functions'] = [];
  const skipped: string[] = [];
  const schemas: Record<string, { input: JsonSchema; output: JsonSchema }> = {};
  const bodies: string[] = [];
  const taken = new Set<string>(['TURN_FILE', 'SCHEMAS', 'callExport']);
  for (const { key, closure, at } of exportsOf(program, where)) {
    if (!closure) {
      skipped.push(key);
      continue;
    }
    const name = identifierFor(key);
    if (taken.has(name)) throw new TurnError('invalid', `${where(at)}: the export "${key}" would be the function ${name}, which another name already is`);
    taken.add(name);
    functions.push({ key, name });
    // parameters: a `T?` one may be left out only when no required one follows it
    // (a Turn parameter named `options` must not hide the call's options)
    const params = closure.params.map((p) => ({ name: identifierFor(p.name.name).replace(/^options$/, 'options_'), turn: p.name.name, type: p.type, optional: p.type?.kind === 'OptionalType' }));
    const lastRequired = params.map((p) => !p.optional).lastIndexOf(true);
    const signature = params.map((p, i) => `${p.name}${p.optional && i > lastRequired ? '?' : ''}: ${p.type ? emit.ts(p.type) : 'unknown'}`);
    const result = closure.returnType ? emit.ts(closure.returnType) : 'unknown';
    // the input schema: an object of the parameters by name, each parameter's `$defs` gathered at the root
    const defs: Record<string, unknown> = {};
    const properties: Record<string, unknown> = {};
    for (const p of params) {
      const { $defs, ...body } = emit.schema(p.type, `the parameter \`${p.turn}\` of "${key}"`);
      Object.assign(defs, $defs as Record<string, unknown> | undefined);
      properties[p.turn] = body;
    }
    schemas[key] = {
      input: { type: 'object', properties, required: params.filter((p) => !p.optional).map((p) => p.turn), additionalProperties: false, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) },
      output: emit.schema(closure.returnType, `the return type of "${key}"`),
    };
    const doc = docCommentBefore(text, at) ?? (letOffset(program, closure) !== undefined ? docCommentBefore(text, letOffset(program, closure)!) : undefined);
    bodies.push(
      `${jsdoc(doc ?? `Calls "${key}" of ${base}.tn: a run of the Turn module; the value's confidence is beside it.`)}export async function ${name}(${[...signature, 'options: CallOptions = {}'].join(', ')}): Promise<CallResult<${result}>> {`,
      `  return (await callExport(TURN_FILE, ${str(key)}, [${params.map((p) => p.name).join(', ')}], { ...options, params: ${JSON.stringify(params.map((p) => p.turn))}, schemas: SCHEMAS[${str(key)}] })) as CallResult<${result}>;`,
      '}',
      '',
    );
  }
  if (functions.length === 0) throw new TurnError('invalid', `${where(program.span.end)}: the module exports no closures: a client has nothing to call`);
  out.push('/** The JSON Schemas each call is checked against: its arguments before the run, its value before it is returned. */');
  out.push('const SCHEMAS: Record<string, { input: object; output: object }> = {');
  for (const [key, s] of Object.entries(schemas)) out.push(`  ${str(key)}: ${JSON.stringify(s)},`);
  out.push('};', '');
  out.push(...bodies);
  return { fileName: `${base}.ts`, text: out.join('\n').trimEnd() + '\n', functions, skipped };
}
