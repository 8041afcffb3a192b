// Turns an absorbed spec into a Turn module: one `struct` per schema and, per operation, a closure
// that goes through the host's HTTP effect (`http_request`), or for an MCP tool the host's MCP
// client (`mcp_call`, runtime/mcp) — so absorbed APIs obey the same capabilities, identities and
// journal as hand-written calls. `use schema::openapi("x.yaml")`
// then evaluates this module like `use "..."`:
//
//   let api = use schema::openapi("market.yaml");
//   let market = api.client("http://127.0.0.1:8080");      // or api.<operation> with the spec's server
//   let quote = market.get_quote(grant identity::bearer("market"), "ACME");
//
// Every operation takes the credential first (an identity handle, a capability map, or null), then
// its parameters: required ones in spec order, then optional ones, which a call may leave out at
// the end (then they are not sent; a `null` given is sent as null where the spec allows null).
// Values go out and come back in the spec's names (wire.ts: `type_` is `type` on the wire).
import type { ApiOperation, ApiShape, StaticType } from '../check/types.js';
import { BUILTIN_TYPE_NAMES } from '../check/types.js';
import { encodedSchema, replyDefs, typeSchema } from './reply.js';
import { TURN_KEYWORDS, UNPAIRED_SURROGATE, identifier, structName, uniqueName } from './schema.js';
import { encodedWire } from './openapi-wire.js';
import type { AbsorbedField, AbsorbedOperation, AbsorbedParam, AbsorbedStruct, AbsorbResult } from './types.js';
import { DISCRIMINATOR, NULLABLE, READ_ONLY, REQUIRED, WRITE_ONLY, encodedTable, shapeOf, type FieldEntry, type NameTable, type ParamEntry, type Shape } from './wire.js';

// The module is correct by construction: every string goes through `turnString`, every comment
// through `commentText`, every name through a check that it is an identifier the grammar accepts
// (else it is sanitized again), every type through `typeText` (which names only declared structs).
// test/absorb/generated.test.ts holds it to that over generated specs.

/** Names the generated code binds itself: a parameter of an operation never takes one of them. */
const MODULE_LOCALS = new Set(['auth', 'base', 'body', 'data', 'decode', 'graphql_data', 'client', 'default_client', 'res', 'reply', 'reply_defs', 'conform', 'more_issues', 'operations', 'validated', 'wire_names', 'arguments_given', 'req', 'wire_request', 'wire_reply']);
/** Beyond this many nested `List<...>`, an element type is `Any` (specs are already bounded by the converter). */
const MAX_TYPE_DEPTH = 32;


/**
 * `s` as a Turn string literal. Quotes and backslashes are escaped, and so is every character that
 * is invisible or breaks a line (controls, format characters, separators other than the space,
 * private-use and unassigned code points): `\n`, `\r`, `\t`, `\0` or `\u{...}`, the escapes the
 * grammar reads. An unpaired surrogate, which a Turn string cannot hold, becomes U+FFFD.
 */
export function turnString(s: string): string {
  if (/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return `"${s}"`; // printable ASCII without quotes and backslashes (base64 schemas)
  let out = '"';
  for (const ch of s.replace(UNPAIRED_SURROGATE, '\ufffd')) {
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\0') out += '\\0';
    else if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) out += `\\u{${ch.codePointAt(0)!.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

/** `s` as the text of a `//` comment: one line of visible characters, at most 200 of them. */
export function commentText(s: string): string {
  const line = s.replace(UNPAIRED_SURROGATE, '\ufffd').replace(/[\p{C}\p{Z}\s]+/gu, ' ').trim();
  return [...line].slice(0, 200).join('');
}

const isIdentifier = (n: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n) && !TURN_KEYWORDS.has(n);
const isStructName = (n: string) => isIdentifier(n) && /^[A-Z]/.test(n) && !BUILTIN_TYPE_NAMES.has(n);

/** The names the module uses for the absorbed structs (the absorbers' names, when they are valid and unique). */
export class Names {
  /** What a `Struct` type names → the declared name (the first struct of that name). */
  private readonly structs = new Map<string, string>();
  /** The declared name of each struct, in order: unique even if two absorbed structs share a name. */
  readonly declared: string[] = [];

  constructor(readonly absorbed: readonly AbsorbedStruct[]) {
    const taken = new Set<string>();
    for (const s of absorbed) {
      const name = isStructName(s.name) && !taken.has(s.name) ? (taken.add(s.name), s.name) : uniqueName(structName(s.name), taken);
      this.declared.push(name);
      if (!this.structs.has(s.name)) this.structs.set(s.name, name);
    }
  }

  /** The declared name of the struct an absorbed `Struct` type names, if it is declared. */
  declaredName(absorbedName: string): string | undefined {
    return this.structs.get(absorbedName);
  }

  /** `t` with its struct names as the module declares them (what the checker holds calls to). */
  staticType(t: StaticType, depth = 0): StaticType {
    if (depth >= MAX_TYPE_DEPTH) return { kind: 'Any' };
    switch (t.kind) {
      case 'List':
        return { kind: 'List', element: this.staticType(t.element, depth + 1) };
      case 'Struct': {
        const name = this.structs.get(t.name);
        return name ? { kind: 'Struct', name } : { kind: 'Any' };
      }
      case 'Enum':
        return t.values.length === 0 ? { kind: 'Str' } : t;
      case 'Map':
        return t.value ? { kind: 'Map', value: this.staticType(t.value, depth + 1) } : { kind: 'Map' };
      case 'Optional': {
        const inner = this.staticType(t.inner, depth + 1);
        return inner.kind === 'Any' || inner.kind === 'Optional' ? inner : { kind: 'Optional', inner };
      }
      case 'Union': {
        const members = t.members.map((m) => this.staticType(m, depth + 1));
        return members.some((m) => m.kind === 'Any') ? { kind: 'Any' } : { kind: 'Union', members };
      }
      case 'Literal':
        return typeof t.value === 'number' && !Number.isFinite(t.value) ? { kind: 'Num' } : t;
      case 'Closure':
      case 'Null':
        return { kind: 'Any' };
      default:
        return t;
    }
  }

  /** The Turn text of `t` (of `staticType(t)`: the two agree). */
  typeText(t: StaticType, depth = 0): string {
    if (depth >= MAX_TYPE_DEPTH) return 'Any';
    switch (t.kind) {
      case 'List':
        return `List<${this.typeText(t.element, depth + 1)}>`;
      case 'Struct':
        return this.structs.get(t.name) ?? 'Any';
      case 'Enum': {
        const values = [...new Set(t.values)];
        if (values.length === 0) return 'Str';
        return values.map(turnString).join(' | ');
      }
      case 'Literal':
        return literalText(t.value);
      case 'Map':
        return t.value ? `Map<Str, ${this.typeText(t.value, depth + 1)}>` : 'Map';
      case 'Optional': {
        const inner = this.staticType(t.inner, depth + 1);
        if (inner.kind === 'Any' || inner.kind === 'Optional') return this.typeText(inner, depth + 1);
        const text = this.typeText(inner, depth + 1);
        // `?` binds tighter than `|`: an optional union is parenthesized
        return inner.kind === 'Union' || (inner.kind === 'Enum' && new Set(inner.values).size > 1) ? `(${text})?` : `${text}?`;
      }
      case 'Union': {
        if (this.staticType(t, depth).kind === 'Any') return 'Any';
        return t.members.map((m) => this.typeText(m, depth + 1)).join(' | ');
      }
      case 'Any':
      case 'Num':
      case 'Str':
      case 'Bool':
      case 'Void':
      case 'Pid':
      case 'Vec':
      case 'Identity':
        return t.kind;
      default:
        return 'Any';
    }
  }
}

/** A literal type's text: a Turn string, a number as the grammar writes it, `true`, `false`, `null`. */
function literalText(v: string | number | boolean | null): string {
  if (typeof v === 'string') return turnString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? numberText(v) : 'Num';
  return String(v);
}

/** A finite number in the grammar's number syntax (`12`, `0.5`, `1e-7`), with a leading `-` when negative. */
export function numberText(n: number): string {
  const abs = Math.abs(n);
  return (n < 0 ? '-' : '') + String(abs);
}

/** `/// ` lines of a description: visible characters only, at most 20 lines of 200 characters. */
export function docLines(doc: string, indent: string): string {
  const lines = doc
    .replace(UNPAIRED_SURROGATE, '\ufffd')
    .split(/\r\n|\r|\n|\u2028|\u2029/)
    .map((l) => [...l.replace(/[\p{C}\p{Z}\s]+/gu, ' ').trim()].slice(0, 200).join(''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.slice(0, 20).map((l) => `${indent}///${l ? ' ' + l : ''}\n`).join('');
}

/** A field's check annotations (` @minimum(0) @pattern("...")`), for the type the field is declared with. */
function checksText(f: AbsorbedField, declared: StaticType): string {
  if (!f.checks || declared.kind === 'Any') return '';
  return f.checks.map((c) => ` @${c.keyword}(${typeof c.value === 'string' ? turnString(c.value) : numberText(c.value)})`).join('');
}

/** A valid identifier from `name`, not in `taken` (and then added to it). */
function localName(name: string, taken: Set<string>): string {
  const base = isIdentifier(name) ? name : identifier(name);
  return uniqueName(isIdentifier(base) ? base : '_' + base, taken);
}

/** The names a struct's fields are declared under (the absorbers' names, unless a name is not one the grammar accepts). */
function fieldNames(s: AbsorbedStruct): string[] {
  const taken = new Set<string>();
  return s.fields.map((f) => localName(f.name, taken));
}

/** What hover shows of a field or parameter: its description, its name on the wire when it differs, its default. */
export function describedDoc(x: { doc?: string; wireName: string; default?: string; access?: AbsorbedField['access'] }, turnName: string): string | undefined {
  const notes = [
    ...(x.wireName !== turnName ? [`On the wire: \`${x.wireName}\`.`] : []),
    ...(x.access === 'readOnly' ? ['Read-only: the server sets it; a request never sends it.'] : []),
    ...(x.access === 'writeOnly' ? ['Write-only: a request sends it; a reply never carries it (one that does loses it).'] : []),
    ...(x.default !== undefined ? [`Default (applied by the server when left out): ${x.default}.`] : []),
  ];
  if (notes.length === 0) return x.doc;
  return [x.doc, notes.join(' ')].filter((l) => l !== undefined && l !== '').join('\n');
}

function structText(s: AbsorbedStruct, name: string, names: Names): string {
  const doc = s.doc ? docLines(s.doc, '') : '';
  const turnNames = fieldNames(s);
  const fields = s.fields.map((f, i) => {
    const declared = fieldType(f, names);
    const fdoc = describedDoc(f, turnNames[i]);
    return `${fdoc ? docLines(fdoc, '    ') : ''}    ${turnNames[i]}: ${names.typeText(declared)}${checksText(f, declared)}`;
  });
  return `${doc}struct ${name} {\n${fields.join(',\n')}\n};`;
}

/**
 * The module's name table (runtime/absorb/wire.ts): every struct an operation's parameters, body or
 * result reaches, with its fields' Turn and wire names, shapes and flags; and `shape(t)`, the shape
 * of a value of type `t` against it.
 */
export class WireNames {
  readonly table: NameTable = {};
  private readonly byDeclared = new Map<string, AbsorbedStruct>();

  constructor(
    result: AbsorbResult,
    private readonly names: Names,
  ) {
    result.structs.forEach((s, i) => this.byDeclared.set(names.declared[i], s));
    for (const op of result.operations) {
      for (const t of [op.result, ...op.params.map((p) => p.type), ...(op.body ? [op.body.type] : [])]) this.reach(names.staticType(t));
    }
  }

  /** Adds the structs `t` names, and those their fields name, to the table. */
  private reach(t: StaticType): void {
    const pending = [t];
    while (pending.length > 0) {
      const x = pending.pop()!;
      if (x.kind === 'List') pending.push(x.element);
      else if (x.kind === 'Optional') pending.push(x.inner);
      else if (x.kind === 'Map' && x.value) pending.push(x.value);
      else if (x.kind === 'Union') pending.push(...x.members);
      else if (x.kind === 'Struct' && !Object.hasOwn(this.table, x.name)) {
        const s = this.byDeclared.get(x.name);
        if (!s) continue;
        this.table[x.name] = []; // marks it reached before its fields are
        const fieldTypes = s.fields.map((f) => this.names.staticType(f.type));
        pending.push(...fieldTypes);
        this.fill(x.name, s, fieldTypes);
      }
    }
  }

  private fill(declared: string, s: AbsorbedStruct, fieldTypes: StaticType[]): void {
    const turnNames = fieldNames(s);
    // shapes name structs reached later too: computed once every struct is in the table
    this.pendingFields.push(() => {
      const entries = s.fields.map((f, i): FieldEntry => {
        const flags = (!f.optional || f.requiredNullable ? REQUIRED : 0) | (f.nullable ? NULLABLE : 0) | (f.access === 'writeOnly' ? WRITE_ONLY : 0) | (f.discriminator ? DISCRIMINATOR : 0);
        const shape = this.shape(fieldTypes[i]);
        const t = fieldTypes[i];
        if (t.kind === 'Literal' && t.value !== null) return [turnNames[i], f.wireName, shape, flags, t.value];
        // a discriminator one of several mapping values name (`cat`, `kitty` → Cat)
        if (f.discriminator && t.kind === 'Enum') return [turnNames[i], f.wireName, shape, flags, t.values];
        return [turnNames[i], f.wireName, shape, flags];
      });
      // a request form is told its reply struct's read-only properties, to leave them out of a map too
      for (const wireName of s.requestOf?.readOnly ?? []) entries.push([wireName, wireName, 0, READ_ONLY]);
      this.table[declared] = entries;
    });
  }

  private readonly pendingFields: (() => void)[] = [];
  private filled = false;

  /** The shape of a value of the declared type `t`. */
  shape(t: StaticType): Shape {
    this.finish();
    return shapeOf(t, (name) => Object.hasOwn(this.table, name));
  }

  /** The shape of an operation's value of absorbed type `t` (what it sends: every struct, whose null fields may be left out). */
  shapeOfAbsorbed(t: StaticType): Shape {
    return this.shape(this.names.staticType(t));
  }

  /** The shape of a reply of absorbed type `t`: only the structs that rename a field, or hold one that does, need a walk. */
  replyShape(t: StaticType): Shape {
    this.finish();
    const renaming = this.renaming();
    return shapeOf(this.names.staticType(t), (name) => renaming.has(name));
  }

  private renamingStructs?: Set<string>;

  /** The structs with a field whose Turn name is not its wire name or that a reply must not carry (writeOnly), or whose value is such a struct (a fixpoint). */
  private renaming(): Set<string> {
    if (this.renamingStructs) return this.renamingStructs;
    const out = new Set<string>();
    const names = (sh: Shape, acc: string[]): string[] => {
      if (typeof sh === 'string') acc.push(sh);
      else if (Array.isArray(sh)) for (const x of sh.slice(1)) names(x, acc);
      return acc;
    };
    for (let changed = true; changed; ) {
      changed = false;
      for (const [struct, fields] of Object.entries(this.table)) {
        if (out.has(struct)) continue;
        if (fields.some((f) => f[0] !== f[1] || f[3] & WRITE_ONLY || names(f[2], []).some((n) => out.has(n)))) {
          out.add(struct);
          changed = true;
        }
      }
    }
    this.renamingStructs = out;
    return out;
  }

  /** An operation's parameters for `wire_arguments`. */
  params(ps: readonly AbsorbedParam[]): ParamEntry[] {
    return ps.map((p) => [p.wireName, this.shapeOfAbsorbed(p.type), (p.optional ? 0 : REQUIRED) | (p.nullable ? NULLABLE : 0)]);
  }

  private finish(): void {
    if (this.filled) return;
    this.filled = true;
    for (const f of this.pendingFields) f();
  }

  /** The table as the module's constant text (base64, as the reply schemas: a Turn string of JSON is mostly escapes). */
  text(): string {
    this.finish();
    return encodedTable(this.table);
  }
}

/** A field's or parameter's type as declared: `T?` when it may be absent or null. */
export function fieldType(f: { type: StaticType; optional: boolean }, names: Names): StaticType {
  const t = names.staticType(f.type);
  return f.optional && t.kind !== 'Any' && t.kind !== 'Optional' ? { kind: 'Optional', inner: t } : t;
}

/** An operation's parameters under the names its closure binds them to. */
type Bound = { param: AbsorbedParam; local: string };

/** The parameters of an operation's closure after `auth`: required ones in spec order, then optional ones. */
function boundParams(op: AbsorbedOperation): Bound[] {
  const taken = new Set(MODULE_LOCALS);
  return [...op.params.filter((p) => !p.optional), ...op.params.filter((p) => p.optional)].map((param) => ({ param, local: localName(param.name, taken) }));
}

/** The key of the operation that gives an API's operations without reply validation. */
export const UNVALIDATED = 'unvalidated';

/** Operations under the keys the module gives them (next to "client" and "unvalidated"). */
function keyedOperations(ops: readonly AbsorbedOperation[]): { op: AbsorbedOperation; key: string }[] {
  const keys = new Set(['client', UNVALIDATED]);
  return ops.map((op) => ({ op, key: uniqueName(op.name, keys) }));
}

/** The module's reply schemas: per operation the schema text (undefined: not validated), and the one `$defs` document. */
interface ReplySchemas {
  byOperation: Map<AbsorbedOperation, string>;
  defs: string;
}

/** Protocols whose replies the generated module validates (MCP's tool results are checked by its transport). */
const VALIDATED: ReadonlySet<string> = new Set(['openapi', 'graphql']);

function replySchemas(result: AbsorbResult, names: Names): ReplySchemas {
  const used = new Set<string>();
  const byOperation = new Map<AbsorbedOperation, string>();
  const defName = (n: string) => names.declaredName(n);
  for (const op of result.operations) {
    if (!VALIDATED.has(op.protocol)) continue;
    const schema = op.replySchema ?? typeSchema(op.result, defName, used);
    if (Object.keys(schema).length > 0) byOperation.set(op, encodedSchema(schema));
  }
  const defs = used.size > 0 ? encodedSchema(replyDefs(result.structs, defName, used)) : '';
  return { byOperation, defs };
}

/**
 * What the checker knows of the generated module: each operation's closure, typed by the spec
 * (`auth`, then the parameters, then `body`; an optional parameter is `T?` and takes null), and
 * `unvalidated()`, the same operations without reply validation, typed `Any`.
 */
export function absorbedApi(result: AbsorbResult, source: string): ApiShape {
  const names = new Names(result.structs);
  const operations: ApiShape['operations'] = new Map();
  const unvalidated: ApiShape['operations'] = new Map();
  for (const { op, key } of keyedOperations(result.operations)) {
    // optional parameters (and an optional body) at the end may be left out of a call
    const params: ApiOperation['params'] = [
      { name: 'auth', type: { kind: 'Any' } },
      ...boundParams(op).map((b) => ({ name: b.local, type: fieldType(b.param, names), ...(b.param.optional ? { mayLeaveOut: true } : {}) })),
    ];
    if (op.body) params.push({ name: 'body', type: fieldType(op.body, names), ...(op.body.optional ? { mayLeaveOut: true } : {}) });
    operations.set(key, { params, result: names.staticType(op.result) });
    unvalidated.set(key, { params, result: { kind: 'Any' } });
  }
  const base = result.operations.find((o) => o.baseUrl)?.baseUrl;
  const server = result.operations.some((o) => o.mcp?.server !== undefined);
  const mcp = result.operations.some((o) => o.protocol === 'mcp');
  const shape: ApiShape = { spec: source, operations, module: true, hasDefault: server || (!!base && /^https?:\/\//.test(base)), ...(mcp ? { clientBase: { kind: 'Any' } } : {}) };
  unvalidated.set(UNVALIDATED, { params: [], result: { kind: 'Map', api: { spec: source, operations: new Map(unvalidated), module: false, hasDefault: true } } });
  operations.set(UNVALIDATED, { params: [], result: { kind: 'Map', api: { spec: source, operations: unvalidated, module: false, hasDefault: true } } });
  return shape;
}

function operationText(op: AbsorbedOperation, key: string, names: Names, replies: ReplySchemas, wire: WireNames): string {
  const params = boundParams(op);
  // an optional parameter is declared `Any?` and `arguments_given` last: a call may leave out the
  // optional ones at the end, which are then not sent (FunctionProto.required)
  const signature = ['auth: Any', ...params.map((p) => `${p.local}: Any${p.param.optional ? '?' : ''}`)];
  if (op.body) signature.push(`body: Any${op.body.optional ? '?' : ''}`);
  signature.push('arguments_given: List');
  const result = names.typeText(op.result);
  // the reply in Turn's names (only when some name differs or a union must be told apart)
  const resultShape = wire.replyShape(op.result);
  const decoded = (reply: string) => (resultShape === 0 ? reply : `call("wire_decode", ${reply}, ${turnString(JSON.stringify(resultShape))}, wire_names)`);
  // the arguments of protocol `in` as the map to send: in the wire's names, those left out absent
  const argumentMap = (where: AbsorbedParam['in']) => {
    const sent = params.map((p, i) => ({ p, i })).filter(({ p }) => p.param.in === where);
    const values = `[${sent.map(({ p }) => p.local).join(', ')}]`;
    const given = `[${sent.map(({ i }) => `arguments_given[${i + 1}]`).join(', ')}]`;
    return `call("wire_arguments", ${values}, ${given}, ${turnString(JSON.stringify(wire.params(sent.map(({ p }) => p.param))))}, wire_names)`;
  };
  const doc = op.doc ? `        // ${commentText(op.doc)}\n` : '';
  const schema = replies.byOperation.get(op);
  // the reply, validated against the operation's schema unless `unvalidated()` gave this operation
  const conform = (reply: string) => (schema === undefined ? reply : `conform(validated, ${turnString(key)}, ${turnString(result)}, ${turnString(schema)}, ${reply})`);
  let request: string;
  if (op.protocol === 'graphql' && op.graphql) {
    request = `call("http_request", auth, "POST", base, {"headers": {"content-type": "application/json"}, "body": call("json_stringify", {"query": ${turnString(op.graphql.document)}, "variables": ${argumentMap('variable')}})})`;
    return `${doc}        ${turnString(key)}: turn(${signature.join(', ')}) -> ${result} {
            let data = graphql_data(${request});
            return ${decoded(conform(`data[${turnString(op.graphql.field)}]`))};
        }`;
  }
  if (op.protocol === 'mcp' && op.mcp) {
    // the reply of a tool with an output schema is validated against it by the host before it binds
    const options = [`"idempotent": ${op.mcp.idempotent ? 'true' : 'false'}`];
    if (op.mcp.outputSchema !== undefined) options.push(`"output_schema": ${turnString(JSON.stringify(op.mcp.outputSchema))}`);
    request = `call("mcp_call", auth, base, ${turnString(op.mcp.tool)}, ${argumentMap('argument')}, {${options.join(', ')}})`;
    return `${doc}        ${turnString(key)}: turn(${signature.join(', ')}) -> ${result} {
            return ${decoded(request)};
        }`;
  }
  // OpenAPI: the URL, headers and body made by `openapi_request` from the operation's wire plan
  // (parameter styles, media types: runtime/absorb/openapi-wire.ts), the reply decoded by its Content-Type
  const plan = turnString(encodedWire(op.wire ?? { path: op.path, params: [], replies: {} }));
  const values = `{${params.filter((p) => ['path', 'query', 'header', 'cookie'].includes(p.param.in)).map((p) => `${turnString(`${p.param.in}:${p.param.wireName}`)}: ${p.local}`).join(', ')}}`;
  // the body in the wire's names, without the optional fields left out (runtime/absorb/wire.ts)
  const body = op.body ? `call("wire_encode", body, ${turnString(JSON.stringify(wire.shapeOfAbsorbed(op.body.type)))}, wire_names)` : 'null';
  const sent = `call("openapi_request", ${plan}, base, ${values}, ${body})`;
  request = `call("http_request", auth, ${turnString(op.method.toUpperCase())}, req["url"], {"headers": req["headers"], "body": req["body"]})`;
  return `${doc}        ${turnString(key)}: turn(${signature.join(', ')}) -> ${result} {
            let req = wire_request(${turnString(key)}, ${sent});
            return ${decoded(conform(`wire_reply(${turnString(key)}, ${plan}, ${request})`))};
        }`;
}

/** A value made of strings, numbers, lists and maps (an MCP launch map) as a Turn literal. */
function turnLiteral(v: unknown): string {
  if (typeof v === 'string') return turnString(v);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return `[${v.map(turnLiteral).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${turnString(k)}: ${turnLiteral(x)}`).join(', ')}}`;
  return 'null';
}

/** The generated module's source text. */
export function absorbedModuleSource(result: AbsorbResult, protocol: string, source: string): string {
  const names = new Names(result.structs);
  const ops = result.operations;
  // Operations are the keys of the maps `client` returns and the module exports, next to "client".
  const keyed = keyedOperations(ops);
  const base = ops.find((o) => o.baseUrl)?.baseUrl;
  const baseType = ops.some((o) => o.protocol === 'mcp') ? 'Any' : 'Str';
  const replies = replySchemas(result, names);
  const wire = new WireNames(result, names);
  const lines = [
    `// Generated by Turn from ${commentText(`${protocol} spec ${source}`)} — do not edit; it is rebuilt when the spec changes.`,
    '',
    ...result.structs.map((s, i) => structText(s, names.declared[i], names)),
    '',
    'let decode = turn(res: Map) -> Any {',
    '    if res["status"] < 200 or res["status"] >= 300 {',
    '        throw {"type": "HttpError", "status": res["status"], "message": "HTTP " + res["status"], "body": res["body"]};',
    '    }',
    '    if res["body"] == "" { return null; }',
    '    return call("json_parse", res["body"]);',
    '};',
    '// OpenAPI: a request the wire plan cannot make, or a reply of a type the operation does not declare, is an error naming the operation.',
    'let wire_request = turn(operation: Str, req: Map) -> Map {',
    '    if req["error"] != null { throw {"type": "RequestError", "operation": operation, "message": operation + ": " + req["error"]}; }',
    '    return req;',
    '};',
    'let wire_reply = turn(operation: Str, plan: Str, res: Map) -> Any {',
    '    if res["status"] < 200 or res["status"] >= 300 {',
    '        throw {"type": "HttpError", "status": res["status"], "message": "HTTP " + res["status"], "body": res["body"]};',
    '    }',
    '    let decoded = call("openapi_reply", plan, res);',
    '    if decoded["error"] != null { throw {"type": "MediaTypeError", "operation": operation, "message": operation + ": " + decoded["error"]}; }',
    '    return decoded["value"];',
    '};',
    'let graphql_data = turn(res: Map) -> Any {',
    '    let reply = decode(res);',
    '    if reply["errors"] != null { throw {"type": "GraphQLError", "message": "GraphQL errors", "errors": reply["errors"]}; }',
    '    return reply["data"];',
    '};',
    `let reply_defs = ${turnString(replies.defs)};`,
    '// Per struct, its fields\' Turn and wire names (runtime/absorb/wire.ts).',
    `let wire_names = ${turnString(wire.text())};`,
    '// A reply that does not conform to the operation\'s declared result is an error, never a value.',
    'let more_issues = turn(n: Num) -> Str {',
    '    if n > 1 { return " (and " + (n - 1) + " more)"; }',
    '    return "";',
    '};',
    'let conform = turn(validated: Bool, operation: Str, expected: Str, schema: Str, reply: Any) -> Any {',
    '    if validated == false { return reply; }',
    '    let issues = call("json_schema_issues", reply, schema, reply_defs);',
    '    if call("len", issues) == 0 { return reply; }',
    '    let first = issues[0];',
    '    throw {"type": "ReplyError", "operation": operation, "pointer": first["pointer"], "expected": first["message"], "issues": issues,',
    '        "message": operation + ": the reply does not conform to " + expected + ": at " + first["pointer"] + " it " + first["message"] + more_issues(call("len", issues))};',
    '};',
    '',
    // an MCP server is a URL or a launch map; every other protocol's base is a URL
    `let operations = turn(base: ${baseType}, validated: Bool) -> Map {`,
    '    return {',
    [...keyed.map(({ op, key }) => operationText(op, key, names, replies, wire)), `        ${turnString(UNVALIDATED)}: turn() -> Map { return operations(base, false); }`].join(',\n'),
    '    };',
    '};',
    `let client = turn(base: ${baseType}) -> Map { return operations(base, true); };`,
    '',
  ];
  const server = ops.find((o) => o.mcp?.server !== undefined)?.mcp?.server;
  const defaults =
    server !== undefined
      ? `let default_client = client(${turnLiteral(server)});\n`
      : base && /^https?:\/\//.test(base)
        ? `let default_client = client(${turnString(base)});\n`
        : 'let default_client = {};\n';
  const exports = ['"client": client', ...[...keyed.map(({ key }) => key), UNVALIDATED].map((key) => `${turnString(key)}: default_client[${turnString(key)}]`)];
  return lines.join('\n') + defaults + `return {${exports.join(', ')}};\n`;
}
