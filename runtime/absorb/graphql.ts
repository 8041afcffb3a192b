// GraphQL SDL: object and input types → structs, enums → Enum, Query and Mutation fields →
// callables that POST a generated query document with variables. Nullable fields, arguments,
// results and list items → optional (`T?`), like a non-null input field or argument with a default
// (it may be left out; the default is kept for hover, and the variable of such an argument is
// declared nullable so that leaving it out lets the server apply the default); unions and
// interface-typed fields → unions of the object types they can be, each such
// object type carrying `__typename` as its literal discriminator (selected in every query). Each
// operation also gets the JSON Schema of its reply as the query document selects it (what the server
// must send back), which the generated module validates the reply against.
import {
  GraphQLError, buildASTSchema, getNamedType, isEnumType, isInputObjectType, isInterfaceType, isListType, isNonNullType,
  isObjectType, isScalarType, isUnionType, parse, print, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType,
  type DocumentNode, type GraphQLArgument, type GraphQLInputField, type GraphQLSchema, type GraphQLType,
} from 'graphql';
import { validateSDL } from 'graphql/validation/validate.js';
import type { StaticType } from '../check/types.js';
import { identifier, operationNames, structName, unionType, uniqueName, withOptional } from './schema.js';
import type { AbsorbedOperation, AbsorbedParam, AbsorbedStruct, SpecDiagnostic } from './types.js';

type JsonSchema = Record<string, unknown>;

/** An abstract type with more possible object types than this is not expanded into inline fragments (GitHub's `Node` has hundreds). */
const MAX_FRAGMENTS = 8;

/** The field every object type that is a member of a union or implements an interface carries. */
export const TYPENAME = '__typename';

export function absorbGraphQL(text: string, file: string, diags: SpecDiagnostic[], baseUrl?: string): { structs: AbsorbedStruct[]; operations: AbsorbedOperation[] } {
  const located = (err: GraphQLError, severity: 'error' | 'warning'): SpecDiagnostic => {
    const loc = err.locations?.[0];
    return { severity, message: `invalid GraphQL SDL: ${err.message.split('\n')[0]}`, file, line: loc?.line, column: loc?.column };
  };
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch (e) {
    if (e instanceof GraphQLError) diags.push(located(e, 'error'));
    else diags.push({ severity: 'error', message: `invalid GraphQL SDL: ${(e as Error).message.split('\n')[0]}`, file });
    return { structs: [], operations: [] };
  }
  // A rule the SDL breaks that still lets the schema be built (a field defined twice, as in GitHub's
  // SDL) is a warning at its line; one that does not (an unknown type) is an error.
  const invalid = validateSDL(document);
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(document, { assumeValidSDL: true });
  } catch (e) {
    for (const err of invalid.slice(0, 10)) diags.push(located(err, 'error'));
    if (invalid.length === 0) diags.push(e instanceof GraphQLError ? located(e, 'error') : { severity: 'error', message: `invalid GraphQL SDL: ${(e as Error).message.split('\n')[0]}`, file });
    return { structs: [], operations: [] };
  }
  for (const err of invalid.slice(0, 10)) diags.push(located(err, 'warning'));
  if (invalid.length > 10) diags.push({ severity: 'warning', message: `invalid GraphQL SDL: ${invalid.length - 10} more problems`, file });
  const errors = validateNames(schema);
  for (const m of errors) diags.push({ severity: 'warning', message: m, file });

  const names = new Set<string>();
  const structNameOf = new Map<string, string>();
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name, schema.getSubscriptionType()?.name]);
  for (const t of types) {
    if ((isObjectType(t) || isInputObjectType(t) || isInterfaceType(t)) && !roots.has(t.name)) structNameOf.set(t.name, uniqueName(structName(t.name), names));
  }
  /**
   * The object types a value of an abstract (union or interface) type can be, when they are few
   * enough to select each with an inline fragment (else []: an interface is then its own struct, a
   * union `Any`, and the query selects `__typename` and the interface's fields).
   */
  const possible = (t: GraphQLNamedType): GraphQLObjectType[] => {
    if (!isUnionType(t) && !isInterfaceType(t)) return [];
    const members = schema.getPossibleTypes(t).filter((o) => structNameOf.has(o.name));
    return members.length <= MAX_FRAGMENTS ? members : [];
  };
  const discriminated = new Set<string>();
  for (const t of types) for (const o of possible(t)) discriminated.add(o.name);

  const typeOf = (t: GraphQLType): { type: StaticType; optional: boolean } => {
    if (isNonNullType(t)) return { type: typeOf(t.ofType).type, optional: false };
    if (isListType(t)) return { type: { kind: 'List', element: withOptional(typeOf(t.ofType)) }, optional: true };
    const named = t as GraphQLNamedType;
    if (isScalarType(named)) {
      const k = ({ Int: 'Num', Float: 'Num', String: 'Str', ID: 'Str', Boolean: 'Bool' } as Record<string, 'Num' | 'Str' | 'Bool'>)[named.name];
      return { type: k ? { kind: k } : { kind: 'Any' }, optional: true };
    }
    if (isEnumType(named)) {
      const values = named.getValues().map((v) => v.name);
      return { type: values.length === 1 ? { kind: 'Literal', value: values[0] } : { kind: 'Enum', values }, optional: true };
    }
    const members = possible(named);
    if (members.length > 0) return { type: unionType(members.map((o) => ({ kind: 'Struct', name: structNameOf.get(o.name)! }))), optional: true };
    const s = structNameOf.get(named.name);
    if (s) return { type: { kind: 'Struct', name: s }, optional: true };
    return { type: { kind: 'Any' }, optional: true }; // a union of no object type we know
  };

  const structs: AbsorbedStruct[] = [];
  for (const t of types) {
    const name = structNameOf.get(t.name);
    if (!name || !(isObjectType(t) || isInputObjectType(t) || isInterfaceType(t))) continue;
    const taken = new Set<string>();
    const fields: AbsorbedStruct['fields'] = [];
    if (discriminated.has(t.name)) fields.push({ name: uniqueName(TYPENAME, taken), wireName: TYPENAME, type: { kind: 'Literal', value: t.name }, optional: false });
    for (const f of Object.values(t.getFields())) {
      const ty = typeOf(f.type);
      // an input field with a default may be left out, whatever its type
      const given = isInputObjectType(t) ? defaultText(f as GraphQLInputField) : undefined;
      const field: AbsorbedStruct['fields'][number] = { name: uniqueName(identifier(f.name), taken), wireName: f.name, type: ty.type, optional: ty.optional || given !== undefined, ...(ty.optional ? { nullable: true } : {}) };
      if (given !== undefined) field.default = given;
      if (f.description) field.doc = f.description;
      fields.push(field);
    }
    const s: AbsorbedStruct = { name, origin: t.name, fields };
    if (t.description) s.doc = t.description;
    structs.push(s);
  }

  const operations: AbsorbedOperation[] = [];
  const opNames = operationNames();
  const selector = new Selector(possible, discriminated);
  for (const [kind, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    if (!root) continue;
    for (const f of Object.values(root.getFields())) {
      const taken = new Set<string>();
      const params: AbsorbedParam[] = f.args.map((a) => {
        const t = typeOf(a.type);
        const given = defaultText(a);
        const p: AbsorbedParam = { name: uniqueName(identifier(a.name), taken), wireName: a.name, in: 'variable', type: t.type, optional: t.optional || given !== undefined, ...(t.optional ? { nullable: true } : {}) };
        if (given !== undefined) p.default = given;
        if (a.description) p.doc = a.description;
        return p;
      });
      const { document, reply } = selector.operation(kind, f);
      const op: AbsorbedOperation = {
        name: uniqueName(identifier(f.name), opNames),
        protocol: 'graphql',
        method: 'POST',
        path: '',
        params,
        // a nullable result is `T?`: the server answers null for it (`book(id)` of no book), so a
        // program narrows it before reading a field
        result: withOptional(typeOf(f.type)),
        origin: `${root.name}.${f.name}`,
        graphql: { operation: kind, field: f.name, document },
        replySchema: reply,
      };
      if (baseUrl) op.baseUrl = baseUrl;
      if (f.description) op.doc = f.description;
      operations.push(op);
    }
  }
  typeSelections(structs, selector);
  return { structs, operations };
}

/**
 * An object type's struct as the queries select it: a value bound from a reply has only the
 * selected fields, so a field no generated query selects (one that needs arguments, a paginated
 * connection, an object past the selection's depth everywhere the type is reached) is not in the
 * struct — reading it is a checker error, not a run-time `null` — and one selected in some places
 * but not others (past the depth limit there, or conflicting in a union) is `T?`, to be tested.
 */
function typeSelections(structs: AbsorbedStruct[], selector: Selector): void {
  for (const s of structs) {
    const visits = selector.visits.get(s.origin);
    if (visits === undefined) continue; // no query reaches it (an input type, or an unused one)
    const selected = selector.selected.get(s.origin)!;
    s.fields = s.fields.filter((f) => f.wireName === TYPENAME || (selected.get(f.wireName) ?? 0) > 0);
    for (const f of s.fields) {
      if (f.wireName === TYPENAME || selected.get(f.wireName) === visits || f.optional) continue;
      f.optional = true;
      f.partlySelected = true;
      f.doc = [f.doc, 'Not selected everywhere the queries reach this type (past their depth, or in a union where it conflicts): test it before reading it.'].filter(Boolean).join('\n');
    }
  }
}

/** Builds query documents and, beside each, the JSON Schema of what it selects. */
class Selector {
  /** Per object type, how many selections of it the queries make... */
  readonly visits = new Map<string, number>();
  /** ...and in how many of them each of its fields is selected. */
  readonly selected = new Map<string, Map<string, number>>();

  constructor(
    private readonly possible: (t: GraphQLNamedType) => GraphQLObjectType[],
    private readonly discriminated: ReadonlySet<string>,
  ) {}

  /** `query Name($a: T!) { field(a: $a) { scalar fields, nested objects to depth 3 } }`, and the schema of `data.field`. */
  operation(kind: 'query' | 'mutation', f: GraphQLField<unknown, unknown>): { document: string; reply: JsonSchema } {
    // a non-null argument with a default takes a nullable variable (the spec allows it), so that a
    // variable left out lets the server apply the default
    const vars = f.args.map((a) => `$${a.name}: ${(isNonNullType(a.type) && a.defaultValue !== undefined ? a.type.ofType : a.type).toString()}`).join(', ');
    const args = f.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const opName = f.name[0].toUpperCase() + f.name.slice(1);
    const sel = this.selection(getNamedType(f.type), 0, []);
    const document = `${kind} ${opName}${vars ? `(${vars})` : ''} { ${f.name}${args ? `(${args})` : ''}${sel ? ' ' + sel.text : ''} }`;
    return { document, reply: this.wrap(f.type, sel?.schema ?? this.leaf(getNamedType(f.type))) };
  }

  /** The schema of a value of type `t` (non-null, lists) around the schema of its named type. */
  private wrap(t: GraphQLType, named: JsonSchema): JsonSchema {
    if (isNonNullType(t)) return this.wrapNonNull(t.ofType, named);
    return orNull(this.wrapNonNull(t, named));
  }

  private wrapNonNull(t: GraphQLType, named: JsonSchema): JsonSchema {
    if (isNonNullType(t)) return this.wrapNonNull(t.ofType, named);
    if (isListType(t)) return { type: 'array', items: this.wrap(t.ofType, named) };
    return named;
  }

  private leaf(t: GraphQLNamedType): JsonSchema {
    if (isScalarType(t)) {
      const type = ({ Int: 'integer', Float: 'number', String: 'string', ID: 'string', Boolean: 'boolean' } as Record<string, string>)[t.name];
      return type ? { type } : {};
    }
    if (isEnumType(t)) return { enum: t.getValues().map((v) => v.name) };
    return {};
  }

  private selection(t: GraphQLNamedType, depth: number, stack: string[]): { text: string; schema: JsonSchema } | undefined {
    if (isUnionType(t) || isInterfaceType(t)) {
      const members = this.possible(t);
      if (members.length === 0 && isUnionType(t)) return { text: `{ ${TYPENAME} }`, schema: { type: 'object', properties: { [TYPENAME]: { type: 'string' } }, required: [TYPENAME] } };
      if (members.length > 0) {
        const parts: string[] = [TYPENAME];
        const schemas: JsonSchema[] = [];
        const conflicting = conflictingFields(members);
        for (const o of members) {
          const sub = this.objectSelection(o, depth, stack, conflicting);
          parts.push(`... on ${o.name} ${sub.text}`);
          schemas.push(sub.schema);
        }
        return { text: `{ ${parts.join(' ')} }`, schema: { anyOf: schemas } };
      }
    }
    if (!(isObjectType(t) || isInterfaceType(t))) return undefined;
    const sel = this.objectSelection(t as GraphQLObjectType, depth, stack);
    return sel.text === '{  }' ? undefined : sel;
  }

  /** `leaveOut`: fields not selected (same-named fields of other members of a union whose types differ). */
  private objectSelection(t: GraphQLObjectType, depth: number, stack: string[], leaveOut?: ReadonlySet<string>): { text: string; schema: JsonSchema } {
    const parts: string[] = [];
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    this.visits.set(t.name, (this.visits.get(t.name) ?? 0) + 1);
    const selected = this.selected.get(t.name) ?? new Map<string, number>();
    this.selected.set(t.name, selected);
    if (this.discriminated.has(t.name)) {
      parts.push(TYPENAME);
      properties[TYPENAME] = { const: t.name };
      required.push(TYPENAME);
    }
    for (const field of Object.values(t.getFields())) {
      if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue; // needs arguments we do not have
      if (isPaginated(field)) continue; // so does a connection: the server refuses it without `first` or `last`
      if (leaveOut?.has(field.name)) continue;
      const inner = getNamedType(field.type);
      let named: JsonSchema | undefined;
      if (isScalarType(inner) || isEnumType(inner)) {
        parts.push(field.name);
        named = this.leaf(inner);
      } else if (depth < 2 && !stack.includes(inner.name)) {
        const sub = this.selection(inner, depth + 1, [...stack, t.name]);
        if (sub) {
          parts.push(`${field.name} ${sub.text}`);
          named = sub.schema;
        }
      }
      if (named === undefined) continue;
      selected.set(field.name, (selected.get(field.name) ?? 0) + 1);
      properties[field.name] = this.wrap(field.type, named);
      if (isNonNullType(field.type)) required.push(field.name);
    }
    return { text: `{ ${parts.join(' ')} }`, schema: { type: 'object', properties, required } };
  }
}

/**
 * The fields of a union's (or interface's) object types that a query may not select in each of their
 * inline fragments: a name two of them have with different types (GitHub's `name: String!` on one,
 * `name: String` on another). A server refuses such a query ("Fields "name" conflict because they
 * return conflicting types"), so those fields are left out of the selection.
 */
function conflictingFields(members: readonly GraphQLObjectType[]): Set<string> {
  const typeOf = new Map<string, string>();
  const out = new Set<string>();
  for (const o of members) {
    for (const f of Object.values(o.getFields())) {
      const t = f.type.toString();
      const seen = typeOf.get(f.name);
      if (seen === undefined) typeOf.set(f.name, t);
      else if (seen !== t) out.add(f.name);
    }
  }
  return out;
}

/**
 * Whether `field` is a paginated (Relay) connection: it takes `first` and `last`, neither with a
 * default. Shopify's and GitHub's servers refuse such a field given neither ("you must provide one
 * of first or last"), though the schema marks both nullable; a query selects it only at the top,
 * where the program gives them (`products(first: 10)`), never inside another selection.
 */
function isPaginated(field: GraphQLField<unknown, unknown>): boolean {
  const first = field.args.find((a) => a.name === 'first');
  const last = field.args.find((a) => a.name === 'last');
  return first !== undefined && last !== undefined && first.defaultValue === undefined && last.defaultValue === undefined;
}

/** `s` or null, as the validator words best (`anyOf [T, null]`: a failure says what a T must be). */
function orNull(s: JsonSchema): JsonSchema {
  if (Object.keys(s).length === 0) return s;
  if (Array.isArray(s.anyOf)) return { anyOf: [...(s.anyOf as unknown[]), { type: 'null' }] };
  return { anyOf: [s, { type: 'null' }] };
}

/** A field's or argument's default as the SDL writes it (`3.5`, `ASC`, `{limit: 10}`), at most 200 characters. */
function defaultText(x: GraphQLArgument | GraphQLInputField): string | undefined {
  if (x.astNode?.defaultValue) return print(x.astNode.defaultValue).slice(0, 200);
  return x.defaultValue === undefined ? undefined : JSON.stringify(x.defaultValue)?.slice(0, 200);
}

function validateNames(schema: GraphQLSchema): string[] {
  const out: string[] = [];
  if (!schema.getQueryType() && !schema.getMutationType()) out.push('the schema has no Query or Mutation type: no callables are absorbed');
  return out;
}
