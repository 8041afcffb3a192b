// `use schema::<protocol>("file-or-url")`: absorbs a spec at compile time into struct
// declarations and typed callables (see types.ts and docs/authority.md). Never throws: every
// problem, including an internal one, is a diagnostic.
import * as path from 'node:path';
import { absorbGraphQL } from './graphql.js';
import { absorbOpenApi } from './openapi.js';
import { SchemaConverter, defaultOf, hasUnpairedSurrogate, identifier, operationNames, structName, uniqueName } from './schema.js';
import { loadSource, parseSpecText, pointerOf } from './source.js';
import { bundleExternalRefs, firstExternalRef } from './refs.js';
import { listServerTools } from '../mcp/list.js';
import { McpError, describeServer, serverSpec, type McpServerSpec } from '../mcp/server.js';
import type { StaticType } from '../check/types.js';
import { PROTOCOLS, type AbsorbOptions, type AbsorbResult, type AbsorbedOperation, type AbsorbedParam, type AbsorbedStruct, type Protocol, type SpecDiagnostic } from './types.js';

export * from './types.js';
export { cacheFileFor } from './source.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

/**
 * `source`: a file or URL; for `mcp`, also a live server: an http(s) URL or a launch map
 * (`{"command": ..., "args": [...]}`, as plain JSON), whose tools are listed and cached.
 */
export async function absorbSchema(protocol: Protocol | string, source: string | Record<string, unknown>, baseDir: string, options: AbsorbOptions): Promise<AbsorbResult> {
  const diagnostics: SpecDiagnostic[] = [];
  const empty = (): AbsorbResult => ({ structs: [], operations: [], diagnostics });
  const shown = typeof source === 'string' ? source : JSON.stringify(source);
  if (!PROTOCOLS.includes(protocol as Protocol)) {
    diagnostics.push({ severity: 'error', message: `unknown schema protocol "${protocol}" (supported: ${PROTOCOLS.join(', ')})`, file: shown });
    return empty();
  }
  if (protocol === 'mcp' && (typeof source !== 'string' || /^https?:\/\//i.test(source))) return absorbLiveMcp(source, options, diagnostics);
  if (typeof source !== 'string') {
    diagnostics.push({ severity: 'error', message: `a ${protocol} spec is a file path or a URL`, file: shown });
    return empty();
  }
  try {
    const loaded = await loadSource(source, baseDir, options, diagnostics);
    if (!loaded) return empty();
    const resolvedFrom = { file: loaded.file ?? loaded.display, url: loaded.url, cached: loaded.cached };
    if (protocol === 'graphql') {
      const r = absorbGraphQL(loaded.text, loaded.display, diagnostics, loaded.url);
      warnUnpairedSurrogates(r.structs, r.operations, (origin, message) => diagnostics.push({ severity: 'warning', message: `${origin}: ${message}`, file: loaded.display }));
      return { ...r, diagnostics, resolvedFrom };
    }
    const doc = parseSpecText(loaded.text, loaded.display, loaded.formatHint, diagnostics);
    if (!doc) return { ...empty(), resolvedFrom };
    if (firstExternalRef(doc.data) !== undefined) {
      // `$ref`s to other files and URLs are brought into the spec first (runtime/absorb/refs.ts)
      // (one that cannot be resolved is an error at it; the rest of the spec is still absorbed)
      const bundled = await bundleExternalRefs(doc, { file: loaded.url ? undefined : loaded.file, url: loaded.url, display: loaded.display }, options, diagnostics);
      if (bundled !== undefined) doc.data = bundled;
    }
    let conv: SchemaConverter;
    let operations: AbsorbedOperation[] = [];
    if (protocol === 'openapi') {
      conv = new SchemaConverter(doc.data, doc, loaded.display, diagnostics, ['#/components/schemas/']);
      operations = absorbOpenApi(conv);
    } else if (protocol === 'jsonschema') {
      conv = new SchemaConverter(doc.data, doc, loaded.display, diagnostics, ['#/$defs/', '#/definitions/']);
      absorbJsonSchema(conv, loaded.formatHint);
    } else {
      conv = new SchemaConverter(doc.data, doc, loaded.display, diagnostics, []);
      operations = absorbMcp(conv);
    }
    warnUnpairedSurrogates(conv.structs, operations, (origin, message) => conv.diag('warning', message, origin));
    return { structs: conv.structs, operations, diagnostics, resolvedFrom };
  } catch (e) {
    // Not reached by any spec the property tests generate (test/absorb/generated.test.ts): a last guard.
    const message = e instanceof RangeError ? 'the spec is nested too deeply to absorb' : `internal error while absorbing the spec: ${(e as Error).message}`;
    diagnostics.push({ severity: 'error', message, file: source, pointer: '#' });
    return empty();
  }
}

/**
 * The generated module's strings are Turn strings, which cannot hold an unpaired UTF-16 surrogate
 * (JSON text can: "\ud800"); the module writes U+FFFD instead, and this says where.
 */
function warnUnpairedSurrogates(structs: AbsorbedStruct[], operations: AbsorbedOperation[], warn: (origin: string, message: string) => void): void {
  const inType = (t: StaticType, depth = 0): boolean => {
    if (depth > 64) return false;
    switch (t.kind) {
      case 'Enum':
        return t.values.some(hasUnpairedSurrogate);
      case 'Literal':
        return typeof t.value === 'string' && hasUnpairedSurrogate(t.value);
      case 'List':
        return inType(t.element, depth + 1);
      case 'Optional':
        return inType(t.inner, depth + 1);
      case 'Map':
        return t.value !== undefined && inType(t.value, depth + 1);
      case 'Union':
        return t.members.some((m) => inType(m, depth + 1));
      default:
        return false;
    }
  };
  const message = (what: string) => `${what} holds a string with an unpaired UTF-16 surrogate, which a Turn string cannot hold: it becomes U+FFFD`;
  for (const s of structs) if (s.fields.some((f) => inType(f.type))) warn(s.origin, message(`struct ${s.name}`));
  for (const op of operations) {
    const strings = [op.path, op.baseUrl ?? '', op.mcp?.tool ?? '', op.graphql?.document ?? '', op.graphql?.field ?? '', ...op.params.map((p) => p.wireName)];
    const types = [op.result, ...op.params.map((p) => p.type), ...(op.body ? [op.body.type] : [])];
    if (strings.some(hasUnpairedSurrogate) || types.some(inType)) warn(op.origin, message(`operation ${op.name}`));
  }
}

function absorbJsonSchema(conv: SchemaConverter, formatHint: string): void {
  const root = conv.root;
  if (!isObj(root)) {
    conv.diag('error', 'a JSON Schema must be an object', '#');
    return;
  }
  if (typeof root.$schema === 'string' && !/json-schema\.org\/(draft-0[4-7]|draft\/20(19-09|20-12))/.test(root.$schema)) {
    conv.diag('warning', `unrecognized $schema "${root.$schema}"; reading it as JSON Schema 2020-12`, '#/$schema');
  }
  for (const container of ['$defs', 'definitions']) {
    const defs = root[container];
    if (defs === undefined) continue;
    if (!isObj(defs)) {
      conv.diag('error', `"${container}" must be an object`, pointerOf([container]));
      continue;
    }
    for (const name of Object.keys(defs)) conv.declareNamed(pointerOf([container, name]), name);
  }
  const rootName = typeof root.title === 'string' ? root.title : path.basename(formatHint).replace(/\.(schema\.)?(json|ya?ml)$/i, '');
  const made = conv.declareNamed('#', rootName);
  if (!made && conv.structs.length === 0) conv.diag('warning', 'the schema has no object type with properties: no struct is absorbed', '#');
}

/** A live MCP server: its tools/list, listed now or from the cache, absorbed like a saved one. */
async function absorbLiveMcp(source: string | Record<string, unknown>, options: AbsorbOptions, diagnostics: SpecDiagnostic[]): Promise<AbsorbResult> {
  const empty = (): AbsorbResult => ({ structs: [], operations: [], diagnostics });
  let spec: McpServerSpec;
  try {
    spec = serverSpec(source);
  } catch (e) {
    if (!(e instanceof McpError)) throw e;
    diagnostics.push({ severity: 'error', message: e.message, file: typeof source === 'string' ? source : JSON.stringify(source) });
    return empty();
  }
  const display = describeServer(spec);
  const listing = await listServerTools(spec, {
    cacheDir: options.cacheDir,
    refresh: options.refresh,
    contact: options.mcp?.contact ?? !!options.fetch,
    launch: options.mcp?.launch ?? false,
    ...(options.mcp?.allowEnv ? { allowEnv: options.mcp.allowEnv } : {}),
    // relative commands and arguments resolve where the run will launch the server: the working directory
    cwd: process.cwd(),
  });
  if (!listing.ok) {
    diagnostics.push({ severity: 'error', message: listing.message, file: display });
    return empty();
  }
  if (listing.warning) diagnostics.push({ severity: 'warning', message: listing.warning, file: display });
  const doc = parseSpecText(listing.text, display, listing.file, diagnostics);
  if (!doc) return empty();
  const conv = new SchemaConverter(doc.data, doc, display, diagnostics, []);
  const operations = absorbMcp(conv, source);
  warnUnpairedSurrogates(conv.structs, operations, (origin, message) => conv.diag('warning', message, origin));
  return { structs: conv.structs, operations, diagnostics, resolvedFrom: { file: listing.file, cached: listing.cached, ...(spec.kind === 'http' ? { url: spec.url } : {}) } };
}

/** An MCP `tools/list` result: `{"tools": [...]}` or the JSON-RPC response around it. */
function absorbMcp(conv: SchemaConverter, server?: string | Record<string, unknown>): AbsorbedOperation[] {
  let root = conv.root;
  let base = '#';
  if (isObj(root) && isObj(root.result) && root.jsonrpc !== undefined) {
    root = root.result;
    base = '#/result';
  }
  if (isObj(root) && root.error !== undefined && !Array.isArray(root.tools)) {
    conv.diag('error', 'this is a JSON-RPC error response, not a tools/list result', base);
    return [];
  }
  if (!isObj(root) || !Array.isArray(root.tools)) {
    conv.diag('error', 'an MCP tools/list result needs a "tools" array', base);
    return [];
  }
  const ops: AbsorbedOperation[] = [];
  const names = operationNames();
  root.tools.forEach((tool, i) => {
    const ptr = `${base}/tools/${i}`;
    if (!isObj(tool) || typeof tool.name !== 'string' || tool.name === '') {
      conv.diag('error', 'a tool needs a "name"', ptr);
      return;
    }
    const input = tool.inputSchema;
    if (!isObj(input)) {
      conv.diag('error', `tool "${tool.name}" needs an "inputSchema" object`, `${ptr}`);
      return;
    }
    if (input.type !== undefined && input.type !== 'object') conv.diag('error', `tool "${tool.name}": inputSchema must have type "object"`, `${ptr}/inputSchema/type`);
    const name = uniqueName(identifier(tool.name), names);
    const required = new Set(Array.isArray(input.required) ? input.required.filter((r): r is string => typeof r === 'string') : []);
    const taken = new Set<string>();
    const params: AbsorbedParam[] = [];
    if (isObj(input.properties)) {
      for (const [k, s] of Object.entries(input.properties)) {
        const t = conv.typeOf(s, `${ptr}/inputSchema/properties/${pointerOf([k]).slice(2)}`, structName(tool.name) + structName(k));
        const p: AbsorbedParam = { name: uniqueName(identifier(k), taken), wireName: k, in: 'argument', type: t.type, optional: t.optional || !required.has(k), ...(t.optional ? { nullable: true } : {}) };
        const given = defaultOf(s);
        if (given !== undefined) p.default = given;
        if (isObj(s) && typeof s.description === 'string') p.doc = s.description;
        params.push(p);
      }
    }
    const result = tool.outputSchema !== undefined ? conv.typeOf(tool.outputSchema, `${ptr}/outputSchema`, structName(tool.name) + 'Result').type : { kind: 'Any' as const };
    const hints = isObj(tool.annotations) ? tool.annotations : {};
    const op: AbsorbedOperation = {
      name,
      protocol: 'mcp',
      method: 'POST',
      path: '',
      params,
      result,
      origin: ptr,
      mcp: {
        tool: tool.name,
        inputSchema: input,
        ...(isObj(tool.outputSchema) ? { outputSchema: tool.outputSchema } : {}),
        idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
        ...(server !== undefined ? { server } : {}),
      },
    };
    if (typeof tool.description === 'string') op.doc = tool.description;
    ops.push(op);
  });
  return ops;
}
