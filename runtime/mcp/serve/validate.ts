// The checks at the served program's two edges: a call's arguments against the tool's input schema
// before any run starts (a JSON-RPC invalid-params error naming the JSON pointer that failed), and
// its value against the output schema before the reply leaves (a program whose value breaks its
// own schema answers with an error result, never with a reply the client's SDK would throw on).
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LINEAR_AJV_OPTIONS } from '../../linear-regex.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../values/index.js';

/** A JSON-RPC error answer: the SDK's Protocol sends `code` and `message` for an error a handler throws. */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** the error's `data` (e.g. the `uri` of a resource not found) */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** JSON-RPC's codes this server answers with. */
export const INVALID_PARAMS = -32602;
export const INVALID_REQUEST = -32600;

type AjvCtor = new (opts: Record<string, unknown>) => { compile(schema: object): ValidateFunction };
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvCtor }).default ?? Ajv2020Module);
let ajv: InstanceType<AjvCtor> | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    ajv ??= new Ajv2020({ strict: false, allErrors: true, ...LINEAR_AJV_OPTIONS });
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

/** At most this many problems are named in one message. */
const NAMED_PROBLEMS = 5;

/** `/a/0: must be number; (the arguments): must NOT have additional property "x"` */
function problems(errors: ErrorObject[] | null | undefined, root: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of errors ?? []) {
    // a union's members each fail: the message of the anyOf itself says enough
    const extra = e.keyword === 'additionalProperties' ? ` "${String((e.params as { additionalProperty?: unknown }).additionalProperty)}"` : '';
    const line = `${e.instancePath === '' ? root : e.instancePath}: ${e.message ?? 'is invalid'}${extra}`;
    if (!seen.has(line)) out.push(line);
    seen.add(line);
    if (out.length === NAMED_PROBLEMS) break;
  }
  return out.join('; ');
}

/**
 * Throws ProtocolError (invalid params) unless `args` conforms to `schema`. The depth is measured
 * first, by a walk with its own stack: a 5,000-deep argument is refused here, never handed to a
 * recursive walk (Ajv's `$ref`s, JSON.stringify) that would overflow V8's stack.
 */
export function checkArguments(what: string, args: unknown, schema: object): void {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new ProtocolError(INVALID_PARAMS, `invalid arguments for ${what}: the arguments must be an object`);
  if (nestedDeeperThan(args, MAX_JSON_DEPTH)) throw new ProtocolError(INVALID_PARAMS, `invalid arguments for ${what}: nested more than ${MAX_JSON_DEPTH} levels deep, the most a value may be`);
  const validate = validatorFor(schema);
  if (!validate(args)) throw new ProtocolError(INVALID_PARAMS, `invalid arguments for ${what}: ${problems(validate.errors, '(the arguments)')}`);
}

/** The problems of `value` against an output schema, or undefined when it conforms. */
export function outputProblems(value: unknown, schema: object): string | undefined {
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return `nested more than ${MAX_JSON_DEPTH} levels deep`;
  const validate = validatorFor(schema);
  return validate(value) ? undefined : problems(validate.errors, '(the value)');
}
