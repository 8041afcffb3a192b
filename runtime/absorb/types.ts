// What `use schema::<protocol>("source")` absorbs at compile time: structs and callables, in the
// shapes of the gradual checker's StaticType (runtime/check/types.ts).
import type { StaticType } from '../check/types.js';
import type { OperationWire } from './openapi-wire.js';

export type Protocol = 'openapi' | 'jsonschema' | 'graphql' | 'mcp';
export const PROTOCOLS: readonly Protocol[] = ['openapi', 'jsonschema', 'graphql', 'mcp'];

/** A JSON Schema validation keyword as a Turn check annotation (`@minimum(0)`, `@pattern("...")`). */
export type CheckKeyword = 'minimum' | 'maximum' | 'exclusive_minimum' | 'exclusive_maximum' | 'multiple_of' | 'min_length' | 'max_length' | 'pattern' | 'min_items' | 'max_items';

export interface FieldCheck {
  keyword: CheckKeyword;
  value: number | string;
}

export interface AbsorbedField {
  /** A valid Turn identifier (sanitized from the spec's property name). */
  name: string;
  /** The property name on the wire (JSON key / GraphQL field), when it differs from `name`. */
  wireName: string;
  type: StaticType;
  /** Not required, or nullable: the value may be `null`/absent (`T?`). */
  optional: boolean;
  /** The spec allows `null` for it (JSON Schema `type: [T, "null"]`/`nullable`, a nullable GraphQL type). */
  nullable?: boolean;
  /** The spec requires the property though it may be null (`optional` is then true): it is always sent, null or not. */
  requiredNullable?: boolean;
  /** The spec's default, as the spec writes it (GraphQL `3.5`, JSON `"asc"`): the server applies it when the field is left out. */
  default?: string;
  doc?: string;
  /** The schema's validation keywords that Turn checks on this field. */
  checks?: FieldCheck[];
  /**
   * OpenAPI `readOnly` (the server sets it: a request never sends it) or `writeOnly` (a request
   * sends it, a reply never carries it). A struct with either has a request form (directions.ts).
   */
  access?: 'readOnly' | 'writeOnly';
  /** A `writeOnly` field: whether a request may leave it out (its reply struct always may). */
  requestOptional?: boolean;
  /** GraphQL: a non-null field some generated queries select and others do not (so it is `T?`). */
  partlySelected?: true;
  /** The property an OpenAPI `discriminator` names: its type is the value(s) naming this struct, which encoding fills in. */
  discriminator?: true;
}

export interface AbsorbedStruct {
  /** A valid, unique Turn struct name (PascalCase). */
  name: string;
  fields: AbsorbedField[];
  doc?: string;
  /** Where it comes from: a JSON pointer into the spec (`#/components/schemas/Pet`) or a GraphQL type name. */
  origin: string;
  /** The request form of the struct named so (directions.ts): its `readOnly` properties left out, by wire name. */
  requestOf?: { struct: string; readOnly: string[] };
}

export interface AbsorbedParam {
  /** A valid Turn identifier. */
  name: string;
  wireName: string;
  /** `variable`: a GraphQL variable; `argument`: an MCP tool argument. */
  in: 'path' | 'query' | 'header' | 'cookie' | 'variable' | 'argument';
  type: StaticType;
  optional: boolean;
  /** The spec allows `null` for it (a nullable GraphQL argument; an MCP argument whose schema allows null). */
  nullable?: boolean;
  /** The spec's default, as the spec writes it: the server applies it when the argument is left out. */
  default?: string;
  doc?: string;
}

export interface AbsorbedOperation {
  /** A valid, unique Turn identifier (operationId, GraphQL field or MCP tool name, sanitized). */
  name: string;
  protocol: Protocol;
  /** HTTP method (GraphQL: POST; MCP: POST, JSON-RPC `tools/call`). */
  method: string;
  /** Path template relative to `baseUrl`, e.g. `/pets/{petId}` (GraphQL/MCP: ''). */
  path: string;
  /** The first server URL of the spec when it has one (may be relative or templated). */
  baseUrl?: string;
  params: AbsorbedParam[];
  /** The request body (OpenAPI), with its content type. */
  body?: { type: StaticType; optional: boolean; contentType: string };
  /** OpenAPI: how parameters, body and replies go on the wire (runtime/absorb/wire.ts). */
  wire?: OperationWire;
  /** The type of a successful response (`Void` when none is described, `Any` when not JSON). */
  result: StaticType;
  doc?: string;
  origin: string;
  graphql?: { operation: 'query' | 'mutation'; field: string; document: string };
  /**
   * The JSON Schema (2020-12) a reply must conform to, when the absorber knows it better than the
   * result type says (GraphQL: what the query document selects). Otherwise it is the result type's.
   */
  replySchema?: Record<string, unknown>;
  /**
   * `server`: the live server it was listed from (an http(s) URL or a launch map, as plain JSON),
   * the generated module's default; `idempotent`: its annotations say readOnlyHint or idempotentHint.
   */
  mcp?: { tool: string; inputSchema: unknown; outputSchema?: unknown; idempotent: boolean; server?: string | Record<string, unknown> };
}

export interface SpecDiagnostic {
  severity: 'error' | 'warning';
  message: string;
  /** The spec file path or URL. */
  file: string;
  /** A JSON pointer into the spec (`#/paths/~1pets/get`), when the spec is JSON/YAML. */
  pointer?: string;
  /** 1-based, when known. */
  line?: number;
  column?: number;
}

export interface AbsorbResult {
  structs: AbsorbedStruct[];
  operations: AbsorbedOperation[];
  diagnostics: SpecDiagnostic[];
  /** The resolved file (or the cache file of a URL) and whether the cache was used. */
  resolvedFrom?: { file: string; url?: string; cached?: boolean };
}

export type FetchLike = (url: string, init?: { signal?: AbortSignal; headers?: Record<string, string> }) => Promise<{
  ok: boolean;
  status: number;
  text(): Promise<string>;
}>;

export interface AbsorbOptions {
  /** Where fetched URLs are cached (one file per URL, keyed by its SHA-256). */
  cacheDir: string;
  /** Re-fetch a URL even when it is cached (`turn check --refresh-schemas`). */
  refresh?: boolean;
  /** The only way a URL is fetched; without it, an uncached URL is a diagnostic. */
  fetch?: FetchLike;
  /** Default 15 000 ms. */
  timeoutMs?: number;
  /**
   * A live MCP server (runtime/mcp/list.ts): HTTP servers may be contacted (`contact`), stdio
   * servers launched with these commands (`launch`: `--allow-run`'s list, or true for any).
   */
  mcp?: { contact?: boolean; launch?: boolean | readonly string[]; allowEnv?: readonly string[] };
}
