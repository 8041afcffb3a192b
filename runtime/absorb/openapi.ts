// OpenAPI 3.0 / 3.1: component schemas → structs; operations → callables through the host's
// HTTP effect. The document is validated structurally here (no external validator), with each
// problem reported at its JSON pointer and line/column.
import type { StaticType } from '../check/types.js';
import { SchemaConverter, identifier, operationNames, structName, uniqueName } from './schema.js';
import { pointerOf } from './source.js';
import type { AbsorbedOperation, AbsorbedParam } from './types.js';
import { isJson, requestMediaType, typedBody, type BodyPlan, type DeclaredReplies } from './media.js';
import { addRequestForms } from './directions.js';
import { DEFAULT_STYLE, STYLES, type ParamLocation, type ParamPlan, type ParamStyle } from './params.js';

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
      const plans: ParamPlan[] = [];
      const params = collectParams(conv, plans, [...shared.map((x, i) => ({ x, ptr: `${d.pointer}/parameters/${i}` })), ...(Array.isArray(op.parameters) ? op.parameters : []).map((x, i) => ({ x, ptr: `${opPtr}/parameters/${i}` }))], name);
      for (const m of p.matchAll(/\{([^}]+)\}/g)) {
        if (!params.some((q) => q.in === 'path' && q.wireName === m[1])) {
          conv.diag('error', `path parameter "${m[1]}" of ${p} is not declared`, opPtr);
          params.push({ name: identifier(m[1]), wireName: m[1], in: 'path', type: { kind: 'Str' }, optional: false });
          plans.push({ name: m[1], in: 'path', style: 'simple', explode: false });
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
      operation.wire = { path: p, params: plans, replies: declaredReplies(conv, op.responses, `${opPtr}/responses`) };
      if (body) {
        const { plan, ...declared } = body;
        operation.body = declared;
        operation.wire.body = plan;
      }
      ops.push(operation);
    }
  }
  addRequestForms(conv.structs, ops, conv.structNames);
  return ops;
}

function derivedName(method: string, p: string): string {
  const parts = p
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith('{') ? 'by_' + s.slice(1, -1) : s));
  return [method, ...parts].join('_');
}

function collectParams(conv: SchemaConverter, plans: ParamPlan[], list: { x: unknown; ptr: string }[], opName: string): AbsorbedParam[] {
  const byKey = new Map<string, AbsorbedParam>();
  const planByKey = new Map<string, ParamPlan>();
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
    planByKey.set(key, paramPlan(conv, p as Obj & { name: string; in: string }, d.pointer));
  }
  plans.push(...planByKey.values());
  return [...byKey.values()];
}

/** How a parameter is serialized: its `style` (checked against its location), `explode`, `allowReserved`, `content`. */
function paramPlan(conv: SchemaConverter, p: Obj & { name: string; in: string }, pointer: string): ParamPlan {
  const where = p.in as ParamLocation;
  let style = DEFAULT_STYLE[where];
  if (typeof p.style === 'string') {
    if ((STYLES[where] as readonly string[]).includes(p.style)) style = p.style as ParamStyle;
    else conv.diag('error', `parameter "${p.name}": style "${p.style}" is not a ${where} style (${STYLES[where].join(', ')})`, `${pointer}/style`);
  }
  const plan: ParamPlan = { name: p.name, in: where, style, explode: typeof p.explode === 'boolean' ? p.explode : style === 'form' };
  if (where === 'query' && p.allowReserved === true) plan.allowReserved = true;
  if (p.schema === undefined && isObj(p.content)) {
    const ct = Object.keys(p.content)[0];
    if (ct !== undefined) plan.content = ct;
  }
  return plan;
}

function pickJson(content: Obj): [string, unknown] | undefined {
  const entries = Object.entries(content);
  return entries.find(([ct]) => /^application\/(.+\+)?json/.test(ct)) ?? entries.find(([ct]) => ct === '*/*') ?? entries[0];
}

function requestBody(conv: SchemaConverter, body: unknown, ptr: string, hint: string): (NonNullable<AbsorbedOperation['body']> & { plan: BodyPlan }) | undefined {
  if (body === undefined) return undefined;
  const d = conv.deref(body, ptr);
  if (!d || !isObj(d.schema)) return undefined;
  const content = d.schema.content;
  if (!isObj(content)) {
    conv.diag('error', 'a request body needs "content"', d.pointer);
    return undefined;
  }
  const ct = requestMediaType(Object.keys(content));
  if (ct === undefined) return undefined;
  const media = content[ct];
  const schemaPtr = `${d.pointer}/content/${pointerOf([ct]).slice(2)}/schema`;
  const t = isObj(media) ? conv.typeOf(media.schema, schemaPtr, hint) : { type: { kind: 'Any' } as StaticType, optional: false };
  const plan: BodyPlan = { contentType: ct };
  const props = isObj(media) ? bodyProperties(conv, media.schema, schemaPtr) : {};
  const readOnly = Object.entries(props).filter(([, s]) => s.readOnly === true).map(([k]) => k);
  if (readOnly.length > 0) plan.readOnly = readOnly;
  const encoding = isObj(media) && isObj(media.encoding) ? media.encoding : {};
  if (ct.toLowerCase() === 'application/x-www-form-urlencoded' || ct.toLowerCase() === 'multipart/form-data') {
    const styled = Object.entries(encoding).filter(([, e]) => isObj(e) && (e.style !== undefined || e.explode !== undefined || e.allowReserved !== undefined));
    if (styled.length > 0) {
      plan.encoding = Object.fromEntries(
        styled.map(([k, e]) => {
          const o = e as Obj;
          const style = typeof o.style === 'string' && (STYLES.query as readonly string[]).includes(o.style) ? (o.style as ParamStyle) : undefined;
          return [k, { ...(style ? { style } : {}), ...(typeof o.explode === 'boolean' ? { explode: o.explode } : {}), ...(o.allowReserved === true ? { allowReserved: true } : {}) }];
        }),
      );
    }
  }
  if (ct.toLowerCase().startsWith('multipart/')) {
    const files = Object.entries(props).filter(([k, s]) => isFile(s) || (isObj(encoding[k]) && typeof encoding[k].contentType === 'string' && !/^(text\/|application\/json)/.test(encoding[k].contentType))).map(([k]) => k);
    if (files.length > 0) plan.files = files;
  }
  return { type: typedBody(ct) ? t.type : { kind: 'Str' }, optional: d.schema.required !== true, contentType: ct, plan };
}

/** A property that is a file's content: `format: binary` (3.0) or a `contentEncoding`/`contentMediaType` (3.1), or a list of those. */
function isFile(s: Obj): boolean {
  if (s.format === 'binary' || s.format === 'base64' || typeof s.contentEncoding === 'string' || typeof s.contentMediaType === 'string') return true;
  return s.type === 'array' && isObj(s.items) && (s.items.format === 'binary' || typeof s.items.contentMediaType === 'string');
}

/** The top-level properties of a body schema (refs followed, allOf members merged), resolved. */
function bodyProperties(conv: SchemaConverter, schema: unknown, pointer: string, depth = 0): Record<string, Obj> {
  const out: Record<string, Obj> = {};
  const d = depth < 16 ? conv.deref(schema, pointer) : undefined;
  if (!d || !isObj(d.schema)) return out;
  const s = d.schema;
  if (Array.isArray(s.allOf)) s.allOf.forEach((m, i) => Object.assign(out, bodyProperties(conv, m, `${d.pointer}/allOf/${i}`, depth + 1)));
  if (isObj(s.properties)) {
    for (const [k, v] of Object.entries(s.properties)) {
      const p = conv.deref(v, `${d.pointer}/properties/${pointerOf([k]).slice(2)}`);
      if (p && isObj(p.schema)) out[k] = p.schema;
    }
  }
  return out;
}

/** The content types each response of an operation declares (`[]`: no content). */
function declaredReplies(conv: SchemaConverter, responses: unknown, ptr: string): DeclaredReplies {
  const out: DeclaredReplies = {};
  if (!isObj(responses)) return out;
  for (const code of Object.keys(responses)) {
    const d = conv.deref(responses[code], `${ptr}/${pointerOf([code]).slice(2)}`);
    if (!d || !isObj(d.schema)) continue;
    out[code] = isObj(d.schema.content) ? Object.keys(d.schema.content) : [];
  }
  return out;
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
  if (!isJson(ct) && ct !== '*/*') return { kind: 'Str' };
  if (!isObj(media) || media.schema === undefined) return { kind: 'Any' };
  return conv.typeOf(media.schema, `${d.pointer}/content/${pointerOf([ct]).slice(2)}/schema`, hint).type;
}
