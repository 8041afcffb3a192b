// The corpus tier's value maker (oas-values.ts) finds a value wherever the schema admits one, checked
// by ajv as the tier checks it: a oneOf of open objects (a value of one member made to match no
// other), a oneOf member that only adds `required`, a discriminator mapping by bare schema name, a
// required property the schema does not list; and, where no value exists, says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { validValue, type Validate } from './oas-values.js';

function validatorFor(doc: Record<string, unknown>): Validate {
  const ajv = new Ajv({ strict: false, validateFormats: false });
  return (schema, value) => {
    const check = ajv.compile({ ...(schema as object), components: doc.components ?? {} });
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  };
}

const DOC = {
  components: {
    schemas: {
      Cat: { type: 'object', properties: { kind: { type: 'string' }, hunts: { type: 'boolean' } } },
      Dog: { type: 'object', properties: { kind: { type: 'string' }, bark: { type: 'string' } } },
    },
  },
};

const cases: [string, unknown][] = [
  ['a oneOf of open objects (each value of one matches the other)', { oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }] }],
  ['a discriminator whose mapping names schemas bare', { oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }], discriminator: { propertyName: 'kind', mapping: { cat: 'Cat', dog: 'Dog' } } }],
  ['a oneOf of members that only add `required`', { type: 'object', properties: { title: { type: 'string' }, a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['title', 'a'] }, { required: ['title', 'b'] }] }],
  ['a required property the schema does not list', { type: 'object', properties: { x: { type: 'boolean' } }, required: ['x', 'not listed'] }],
];

for (const [what, schema] of cases) {
  test(`the value maker finds a valid value: ${what}`, () => {
    for (const variant of ['all', 'none'] as const) {
      const made = validValue(DOC, schema, variant, validatorFor(DOC));
      assert.deepEqual(made.errors, [], `${variant}: ${JSON.stringify(made.value)}`);
    }
  });
}

test('where no value exists, the maker says why (an allOf of string and integer)', () => {
  const made = validValue(DOC, { allOf: [{ type: 'string' }, { type: 'integer' }] }, 'all', validatorFor(DOC));
  assert.deepEqual(made.errors, ['/ must be integer']);
});
