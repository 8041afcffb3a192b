// Validation of model replies against compiled schemas (Ajv, JSON Schema 2020-12, strict mode).
// Each schema object is compiled once.
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

type AjvCtor = new (opts: Record<string, unknown>) => {
  compile(schema: object): ValidateFunction;
  errorsText(errors: unknown, opts?: Record<string, unknown>): string;
};
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvCtor }).default ?? Ajv2020Module) as unknown as AjvCtor;

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
  const v = validatorFor(schema);
  if (v(value)) return null;
  return ajv!.errorsText(v.errors, { dataVar: 'reply' });
}
