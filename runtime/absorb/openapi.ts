// OpenAPI 3.0 / 3.1: component schemas → structs; operations → callables through the host's
// HTTP effect. The document is validated structurally here (no external validator), with each
// problem reported at its JSON pointer and line/column.
import type { StaticType } from '../check/types.js';
import { SchemaConverter, identifier, operationNames, structName, uniqueName } from './schema.js';
import { pointerOf } from './source.js';
import type { AbsorbedOperation, AbsorbedParam } from './types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

export function absorbOpenApi(conv: SchemaConverter): AbsorbedOperation[] {
  const root = conv.root;
  if (!isObj(root)) {
    conv.diag('error', 'an OpenAPI document must be an object', '#');
    return [];
  }
  if (typeof root.swagger === 'string') {
    conv.diag('error', `Swagger ${root.swagger} is not supported: convert it to OpenAPI 3.0 or 3.1`, '#/swagger');
    return [];
  }
  if (typeof root.openapi !== 'string') {
    conv.diag('error', 'missing "openapi" version field (expected 3.0.x or 3.1.x)', '#');
    return [];
  }
  if (!/^3\.[01]\.\d+/.test(root.openapi)) {
    conv.diag('error', `OpenAPI version ${root.openapi} is not supported (expected 3.0.x or 3.1.x)`, '#/openapi');
    return [];
  }
  if (!isObj(root.info)) conv.diag('warning', 'missing "info" object', '#');
  if (root.paths !== undefined && !isObj(root.paths)) conv.diag('error', '"paths" must be an object', '#/paths');

  const components = isObj(root.components) ? root.components : {};
  const schemas = components.schemas;
  if (schemas !== undefined && !isObj(schemas)) conv.diag('error', '"components.schemas" must be an object', '#/components/schemas');
  if (isObj(schemas)) {
    for (const name of Object.keys(schemas)) conv.declareNamed(pointerOf(['components', 'schemas', name]), name);
  }

  const baseUrl = Array.isArray(root.servers) && isObj(root.servers[0]) && typeof root.servers[0].url === 'string' ? root.servers[0].url : undefined;
  const ops: AbsorbedOperation[] = [];
  const names = operationNames();
  const paths = isObj(root.paths) ? root.paths : {};
  for (const [p, item] of Object.entries(paths)) {
    const itemPtr = pointerOf(['paths', p]);
    if (!p.startsWith('/')) conv.diag('error', `path "${p}" must start with /`, itemPtr);
    const d = conv.deref(item, itemPtr);
    if (!d || !isObj(d.schema)) {
      if (d) conv.diag('error', 'a path item must be an object', itemPtr);
      continue;
    }
    const pathItem = d.schema;
    const shared = Array.isArray(pathItem.parameters) ? pathItem.parameters : [];
    for (const method of METHODS) {
      const op = pathItem[method];
      if (op === undefined) continue;
      const opPtr = `${d.pointer}/${method}`;
      if (!isObj(op)) {
        conv.diag('error', 'an operation must be an object', opPtr);
        continue;
      }
      const base = typeof op.operationId === 'string' && op.operationId ? op.operationId : derivedName(method, p);
      const name = uniqueName(identifier(base), names);
      const params = collectParams(conv, [...shared.map((x, i) => ({ x, ptr: `${d.pointer}/parameters/${i}` })), ...(Array.isArray(op.parameters) ? op.parameters : []).map((x, i) => ({ x, ptr: `${opPtr}/parameters/${i}` }))], name);
      for (const m of p.matchAll(/\{([^}]+)\}/g)) {
        if (!params.some((q) => q.in === 'path' && q.wireName === m[1])) {
          conv.diag('error', `path parameter "${m[1]}" of ${p} is not declared`, opPtr);
          params.push({ name: identifier(m[1]), wireName: m[1], in: 'path', type: { kind: 'Str' }, optional: false });
        }
      }
      const operation: AbsorbedOperation = {
        name,
        protocol: 'openapi',
        method: method.toUpperCase(),
        path: p,
        params,
        result: responseType(conv, op.responses, `${opPtr}/responses`, structName(name) + 'Response'),
        origin: opPtr,
      };
      if (baseUrl !== undefined) operation.baseUrl = baseUrl;
      const doc = [op.summary, op.description].filter((s): s is string => typeof s === 'string').join('\n\n');
      if (doc) operation.doc = doc;
      const body = requestBody(conv, op.requestBody, `${opPtr}/requestBody`, structName(name) + 'Body');
      if (body) operation.body = body;
      ops.push(operation);
    }
  }
  return ops;
}

function derivedName(method: string, p: string): string {
  const parts = p
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith('{') ? 'by_' + s.slice(1, -1) : s));
  return [method, ...parts].join('_');
}

function collectParams(conv: SchemaConverter, list: { x: unknown; ptr: string }[], opName: string): AbsorbedParam[] {
  const byKey = new Map<string, AbsorbedParam>();
  const taken = new Set<string>();
  for (const { x, ptr } of list) {
    const d = conv.deref(x, ptr);
    if (!d) continue;
    const p = d.schema;
    if (!isObj(p) || typeof p.name !== 'string' || typeof p.in !== 'string') {
      conv.diag('error', 'a parameter needs "name" and "in"', ptr);
      continue;
    }
    if (!['path', 'query', 'header', 'cookie'].includes(p.in)) {
      conv.diag('error', `parameter "${p.name}": "in" must be path, query, header or cookie`, `${d.pointer}/in`);
      continue;
    }
    let type: StaticType = { kind: 'Any' };
    let optional = p.required !== true;
    if (p.in === 'path' && p.required !== true) conv.diag('warning', `path parameter "${p.name}" should have required: true`, d.pointer);
    if (p.in === 'path') optional = false;
    if (p.schema !== undefined) {
      const t = conv.typeOf(p.schema, `${d.pointer}/schema`, structName(opName) + structName(p.name));
      type = t.type;
    } else if (isObj(p.content)) {
      const first = Object.entries(p.content)[0];
      if (first && isObj(first[1])) type = conv.typeOf(first[1].schema, `${d.pointer}/content/${pointerOf([first[0]]).slice(2)}/schema`, structName(opName) + structName(p.name)).type;
    }
    const key = `${p.in}:${p.name}`;
    const prev = byKey.get(key);
    const param: AbsorbedParam = { name: prev?.name ?? uniqueName(identifier(p.name), taken), wireName: p.name, in: p.in as AbsorbedParam['in'], type, optional };
    if (typeof p.description === 'string') param.doc = p.description;
    byKey.set(key, param); // operation-level overrides path-level
  }
  return [...byKey.values()];
}

function pickJson(content: Obj): [string, unknown] | undefined {
  const entries = Object.entries(content);
  return entries.find(([ct]) => /^application\/(.+\+)?json/.test(ct)) ?? entries.find(([ct]) => ct === '*/*') ?? entries[0];
}

function requestBody(conv: SchemaConverter, body: unknown, ptr: string, hint: string): AbsorbedOperation['body'] {
  if (body === undefined) return undefined;
  const d = conv.deref(body, ptr);
  if (!d || !isObj(d.schema)) return undefined;
  const content = d.schema.content;
  if (!isObj(content)) {
    conv.diag('error', 'a request body needs "content"', d.pointer);
    return undefined;
  }
  const picked = pickJson(content);
  if (!picked) return undefined;
  const [ct, media] = picked;
  const t = isObj(media) ? conv.typeOf(media.schema, `${d.pointer}/content/${pointerOf([ct]).slice(2)}/schema`, hint) : { type: { kind: 'Any' } as StaticType, optional: false };
  return { type: /json/.test(ct) || ct === '*/*' ? t.type : { kind: 'Str' }, optional: d.schema.required !== true, contentType: ct };
}

function responseType(conv: SchemaConverter, responses: unknown, ptr: string, hint: string): StaticType {
  if (!isObj(responses)) {
    conv.diag(responses === undefined ? 'warning' : 'error', 'an operation needs "responses"', ptr.replace(/\/responses$/, ''));
    return { kind: 'Any' };
  }
  const codes = Object.keys(responses);
  const code = codes.filter((c) => /^2\d\d$/.test(c)).sort()[0] ?? codes.find((c) => c === '2XX') ?? codes.find((c) => c === 'default');
  if (!code) return { kind: 'Any' };
  const d = conv.deref(responses[code], `${ptr}/${code}`);
  if (!d || !isObj(d.schema)) return { kind: 'Any' };
  const content = d.schema.content;
  if (!isObj(content) || Object.keys(content).length === 0) return { kind: 'Void' };
  const picked = pickJson(content);
  if (!picked) return { kind: 'Any' };
  const [ct, media] = picked;
  if (!/json/.test(ct) && ct !== '*/*') return { kind: 'Str' };
  if (!isObj(media) || media.schema === undefined) return { kind: 'Any' };
  return conv.typeOf(media.schema, `${d.pointer}/content/${pointerOf([ct]).slice(2)}/schema`, hint).type;
}
