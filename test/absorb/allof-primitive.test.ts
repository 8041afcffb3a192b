// `allOf` of primitive schemas (readme.json has 13: `allOf: [{type: string}, {type: string, minLength: 1}]`)
// is that primitive with every member's checks, not an empty struct; an allOf of objects is still one struct.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { absorbSchema } from '../../runtime/absorb/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-allof-'));

test('an allOf of string schemas is a Str with the checks of every member; an allOf of objects merges into a struct', async () => {
  const spec = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: {
      schemas: {
        Slug: { allOf: [{ type: 'string', pattern: '^[a-z-]+$' }, { $ref: '#/components/schemas/Short' }] },
        Short: { type: 'string', minLength: 1, maxLength: 30 },
        Page: { type: 'object', required: ['slug'], properties: { slug: { allOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] }, alias: { $ref: '#/components/schemas/Slug' } } },
        Both: { allOf: [{ $ref: '#/components/schemas/Page' }, { type: 'object', properties: { extra: { type: 'integer' } } }] },
      },
    },
  };
  fs.writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec));
  const r = await absorbSchema('openapi', 'spec.json', dir, { cacheDir: path.join(dir, '.cache') });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.structs.map((s) => s.name).sort(), ['Both', 'Page'], 'no struct for the string allOf');
  const page = r.structs.find((s) => s.name === 'Page')!;
  const slug = page.fields.find((f) => f.wireName === 'slug')!;
  assert.deepEqual(slug.type, { kind: 'Str' });
  assert.deepEqual(slug.checks, [{ keyword: 'min_length', value: 1 }]);
  const alias = page.fields.find((f) => f.wireName === 'alias')!;
  assert.deepEqual(alias.type, { kind: 'Str' });
  assert.deepEqual(alias.checks?.map((c) => c.keyword).sort(), ['max_length', 'min_length', 'pattern']);
  assert.deepEqual(r.structs.find((s) => s.name === 'Both')!.fields.map((f) => f.wireName), ['slug', 'alias', 'extra']);
});
