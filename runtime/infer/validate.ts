// Validation of model replies against compiled schemas (Ajv, JSON Schema 2020-12, strict mode).
// Each schema object is compiled once (the compiler makes one schema object per type).
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ValidationIssue } from './types.js';

type AjvCtor = new (opts: Record<string, unknown>) => {
  compile(schema: object): ValidateFunction;
  errorsText(errors: unknown, opts?: Record<string, unknown>): string;
};
const Ajv2020 = (Ajv2020Module as unknown as { default?: AjvCtor }).default ?? Ajv2020Module;

let ajv: InstanceType<AjvCtor> | undefined;
const cache = new WeakMap<object, ValidateFunction>();

export function validatorFor(schema: object): ValidateFunction {
  let v = cache.get(schema);
  if (!v) {
    ajv ??= new Ajv2020({ strict: true, allErrors: true });
    v = ajv.compile(schema);
    cache.set(schema, v);
  }
  return v;
}

/** `null` when `value` conforms, else a readable list of the violations. */
export function validate(schema: object, value: unknown): string | null {
  const found = issues(schema, value);
  return found ? found.map(formatIssue).join('; ') : null;
}

/** `null` when `value` conforms, else each violation with its JSON Pointer (prefixed by `prefix`). */
export function issues(schema: object, value: unknown, prefix = ''): ValidationIssue[] | null {
  const v = validatorFor(schema);
  if (v(value)) return null;
  return (v.errors ?? []).map((e) => ({ path: prefix + e.instancePath, message: describe(e) }));
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `must not have the property ${JSON.stringify(p.additionalProperty)}`;
    case 'required':
      return `must have the property ${JSON.stringify(p.missingProperty)}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    case 'type':
      return `must be ${String(p.type).replace(/^(array|object|integer)$/, 'an $1').replace(/^(number|string|boolean|null)$/, 'a $1')}`;
  }
  return e.message ?? e.keyword;
}

export function formatIssue(i: ValidationIssue): string {
  return `${i.path || '/'}: ${i.message}`;
}
