// GraphQL SDL: object and input types → structs, enums → Enum, Query and Mutation fields →
// callables that POST a generated query document with variables.
import {
  GraphQLError, buildASTSchema, getNamedType, isEnumType, isInputObjectType, isInterfaceType, isListType, isNonNullType,
  isObjectType, isScalarType, isUnionType, parse, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType,
  type GraphQLSchema, type GraphQLType,
} from 'graphql';
import type { StaticType } from '../check/types.js';
import { identifier, operationNames, structName, uniqueName } from './schema.js';
import type { AbsorbedOperation, AbsorbedParam, AbsorbedStruct, SpecDiagnostic } from './types.js';

export function absorbGraphQL(text: string, file: string, diags: SpecDiagnostic[], baseUrl?: string): { structs: AbsorbedStruct[]; operations: AbsorbedOperation[] } {
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(parse(text));
  } catch (e) {
    const errs = e instanceof GraphQLError ? [e] : ((e as { errors?: GraphQLError[] }).errors ?? []);
    if (errs.length === 0) diags.push({ severity: 'error', message: `invalid GraphQL SDL: ${(e as Error).message.split('\n')[0]}`, file });
    for (const err of errs) {
      const loc = err.locations?.[0];
      diags.push({ severity: 'error', message: `invalid GraphQL SDL: ${err.message.split('\n')[0]}`, file, line: loc?.line, column: loc?.column });
    }
    return { structs: [], operations: [] };
  }
  const errors = validateNames(schema);
  for (const m of errors) diags.push({ severity: 'warning', message: m, file });

  const names = new Set<string>();
  const structNameOf = new Map<string, string>();
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name, schema.getSubscriptionType()?.name]);
  for (const t of types) {
    if ((isObjectType(t) || isInputObjectType(t) || isInterfaceType(t)) && !roots.has(t.name)) structNameOf.set(t.name, uniqueName(structName(t.name), names));
  }
  const typeOf = (t: GraphQLType): { type: StaticType; optional: boolean } => {
    if (isNonNullType(t)) return { type: typeOf(t.ofType).type, optional: false };
    if (isListType(t)) return { type: { kind: 'List', element: typeOf(t.ofType).type }, optional: true };
    const named = t as GraphQLNamedType;
    if (isScalarType(named)) {
      const k = ({ Int: 'Num', Float: 'Num', String: 'Str', ID: 'Str', Boolean: 'Bool' } as Record<string, 'Num' | 'Str' | 'Bool'>)[named.name];
      return { type: k ? { kind: k } : { kind: 'Any' }, optional: true };
    }
    if (isEnumType(named)) return { type: { kind: 'Enum', values: named.getValues().map((v) => v.name) }, optional: true };
    const s = structNameOf.get(named.name);
    if (s) return { type: { kind: 'Struct', name: s }, optional: true };
    return { type: { kind: 'Any' }, optional: true }; // unions
  };

  const structs: AbsorbedStruct[] = [];
  for (const t of types) {
    const name = structNameOf.get(t.name);
    if (!name || !(isObjectType(t) || isInputObjectType(t) || isInterfaceType(t))) continue;
    const taken = new Set<string>();
    const s: AbsorbedStruct = {
      name,
      origin: t.name,
      fields: Object.values(t.getFields()).map((f) => {
        const ty = typeOf(f.type);
        const field = { name: uniqueName(identifier(f.name), taken), wireName: f.name, type: ty.type, optional: ty.optional } as AbsorbedStruct['fields'][number];
        if (f.description) field.doc = f.description;
        return field;
      }),
    };
    if (t.description) s.doc = t.description;
    structs.push(s);
  }

  const operations: AbsorbedOperation[] = [];
  const opNames = operationNames();
  for (const [kind, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    if (!root) continue;
    for (const f of Object.values(root.getFields())) {
      const taken = new Set<string>();
      const params: AbsorbedParam[] = f.args.map((a) => {
        const t = typeOf(a.type);
        const p: AbsorbedParam = { name: uniqueName(identifier(a.name), taken), wireName: a.name, in: 'variable', type: t.type, optional: t.optional };
        if (a.description) p.doc = a.description;
        return p;
      });
      const op: AbsorbedOperation = {
        name: uniqueName(identifier(f.name), opNames),
        protocol: 'graphql',
        method: 'POST',
        path: '',
        params,
        result: typeOf(f.type).type,
        origin: `${root.name}.${f.name}`,
        graphql: { operation: kind, field: f.name, document: queryDocument(kind, f) },
      };
      if (baseUrl) op.baseUrl = baseUrl;
      if (f.description) op.doc = f.description;
      operations.push(op);
    }
  }
  return { structs, operations };
}

/** `query Name($a: T!) { field(a: $a) { scalar fields, nested objects to depth 3 } }` */
export function queryDocument(kind: 'query' | 'mutation', f: GraphQLField<unknown, unknown>): string {
  const vars = f.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const args = f.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const opName = f.name[0].toUpperCase() + f.name.slice(1);
  const sel = selection(getNamedType(f.type), 0, []);
  return `${kind} ${opName}${vars ? `(${vars})` : ''} { ${f.name}${args ? `(${args})` : ''}${sel ? ' ' + sel : ''} }`;
}

function selection(t: GraphQLNamedType, depth: number, stack: string[]): string {
  if (!(isObjectType(t) || isInterfaceType(t))) {
    if (isUnionType(t)) return '{ __typename }';
    return '';
  }
  const parts: string[] = [];
  for (const field of Object.values((t as GraphQLObjectType).getFields())) {
    if (field.args.some((a) => isNonNullType(a.type))) continue; // needs arguments we do not have
    const inner = getNamedType(field.type);
    if (isScalarType(inner) || isEnumType(inner)) parts.push(field.name);
    else if (depth < 2 && !stack.includes(inner.name)) {
      const sub = selection(inner, depth + 1, [...stack, t.name]);
      if (sub) parts.push(`${field.name} ${sub}`);
    }
  }
  return parts.length ? `{ ${parts.join(' ')} }` : '';
}

function validateNames(schema: GraphQLSchema): string[] {
  const out: string[] = [];
  if (!schema.getQueryType() && !schema.getMutationType()) out.push('the schema has no Query or Mutation type: no callables are absorbed');
  return out;
}
