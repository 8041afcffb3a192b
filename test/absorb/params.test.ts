// OpenAPI 3 parameter serialization (runtime/absorb/params.ts) against every row of the
// specification's style examples table (https://spec.openapis.org/oas/v3.1.0#style-examples):
// color = "" (empty), "blue", ["blue", "black", "brown"], {"R": 100, "G": 200, "B": 150};
// then reserved characters, nulls, and hostile values (a header or cookie that would break the message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParamError, percentEncode, serializeCookie, serializeHeader, serializeParams, serializePath, serializeQuery, type ParamPlan, type ParamStyle } from '../../runtime/absorb/params.js';

const EMPTY = '';
const STRING = 'blue';
const ARRAY = ['blue', 'black', 'brown'];
const OBJECT = { R: 100, G: 200, B: 150 };

const plan = (inn: ParamPlan['in'], style: ParamStyle, explode: boolean, extra: Partial<ParamPlan> = {}): ParamPlan => ({ name: 'color', in: inn, style, explode, ...extra });

/** style, explode, then the table's four columns (undefined: n/a in the table). */
const PATH_ROWS: [ParamStyle, boolean, string | undefined, string, string, string][] = [
  ['matrix', false, ';color', ';color=blue', ';color=blue,black,brown', ';color=R,100,G,200,B,150'],
  ['matrix', true, ';color', ';color=blue', ';color=blue;color=black;color=brown', ';R=100;G=200;B=150'],
  ['label', false, '.', '.blue', '.blue,black,brown', '.R,100,G,200,B,150'],
  ['label', true, '.', '.blue', '.blue.black.brown', '.R=100.G=200.B=150'],
  ['simple', false, undefined, 'blue', 'blue,black,brown', 'R,100,G,200,B,150'],
  ['simple', true, undefined, 'blue', 'blue,black,brown', 'R=100,G=200,B=150'],
];

test('path styles: every row of the style examples table (simple, label, matrix; explode or not)', () => {
  for (const [style, explode, empty, string, array, object] of PATH_ROWS) {
    const p = plan('path', style, explode);
    const row = `${style} explode=${explode}`;
    if (empty !== undefined) assert.equal(serializePath(p, EMPTY), empty, `${row}: empty`);
    assert.equal(serializePath(p, STRING), string, `${row}: string`);
    assert.equal(serializePath(p, ARRAY), array, `${row}: array`);
    assert.equal(serializePath(p, OBJECT), object, `${row}: object`);
  }
});

/** The query rows: the pairs joined by `&` (the table writes space and pipe percent-encoded). */
const QUERY_ROWS: [ParamStyle, boolean, string | undefined, string | undefined, string | undefined, string][] = [
  ['form', false, 'color=', 'color=blue', 'color=blue,black,brown', 'color=R,100,G,200,B,150'],
  ['form', true, 'color=', 'color=blue', 'color=blue&color=black&color=brown', 'R=100&G=200&B=150'],
  ['spaceDelimited', false, undefined, undefined, 'color=blue%20black%20brown', 'color=R%20100%20G%20200%20B%20150'],
  ['pipeDelimited', false, undefined, undefined, 'color=blue%7Cblack%7Cbrown', 'color=R%7C100%7CG%7C200%7CB%7C150'],
  ['deepObject', true, undefined, undefined, undefined, 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150'],
];

test('query styles: every row of the style examples table (form, spaceDelimited, pipeDelimited, deepObject)', () => {
  for (const [style, explode, empty, string, array, object] of QUERY_ROWS) {
    const p = plan('query', style, explode);
    const row = `${style} explode=${explode}`;
    const q = (v: unknown) => serializeQuery(p, v).join('&');
    if (empty !== undefined) assert.equal(q(EMPTY), empty, `${row}: empty`);
    if (string !== undefined) assert.equal(q(STRING), string, `${row}: string`);
    else assert.throws(() => q(STRING), ParamError, `${row}: a single value is n/a`);
    if (array !== undefined) assert.equal(q(ARRAY), array, `${row}: array`);
    else assert.throws(() => q(ARRAY), ParamError, `${row}: a list is n/a`);
    assert.equal(q(OBJECT), object, `${row}: object`);
  }
});

test('header (simple) and cookie (form) parameters: lists and maps as the table says; cookies are name=value pairs', () => {
  assert.equal(serializeHeader(plan('header', 'simple', false), ARRAY), 'blue,black,brown');
  assert.equal(serializeHeader(plan('header', 'simple', false), OBJECT), 'R,100,G,200,B,150');
  assert.equal(serializeHeader(plan('header', 'simple', true), OBJECT), 'R=100,G=200,B=150');
  assert.equal(serializeHeader(plan('header', 'simple', false), 7), '7');
  assert.deepEqual(serializeCookie(plan('cookie', 'form', true), ARRAY), ['color=blue', 'color=black', 'color=brown']);
  assert.deepEqual(serializeCookie(plan('cookie', 'form', false), ARRAY), ['color=blue,black,brown']);
  assert.deepEqual(serializeCookie(plan('cookie', 'form', true), 'a b;c'), ['color=a%20b%3Bc'], 'a space or ; never reaches the Cookie header');
});

test('reserved characters: percent-encoded in every location, kept in a query with allowReserved (but # never)', () => {
  const v = 'a/b?c&d=e f#g,h;ü';
  assert.equal(serializePath(plan('path', 'simple', false), v), 'a%2Fb%3Fc%26d%3De%20f%23g%2Ch%3B%C3%BC');
  assert.equal(serializeQuery(plan('query', 'form', true), v).join('&'), 'color=a%2Fb%3Fc%26d%3De%20f%23g%2Ch%3B%C3%BC');
  assert.equal(serializeQuery(plan('query', 'form', true, { allowReserved: true }), v).join('&'), 'color=a/b?c&d=e%20f%23g,h;%C3%BC');
  // a list item holding the separator stays one item
  assert.equal(serializePath(plan('path', 'simple', false), ['a,b', 'c']), 'a%2Cb,c');
  assert.equal(serializePath(plan('path', 'label', true), ['a,b', 'c']), '.a%2Cb.c');
  assert.equal(percentEncode("!'()*"), '%21%27%28%29%2A', 'the sub-delimiters encodeURIComponent leaves are encoded');
  assert.equal(percentEncode('\ud800x'), '%EF%BF%BDx', 'an unpaired surrogate is U+FFFD, not a crash');
  assert.equal(percentEncode('😀'), '%F0%9F%98%80');
});

test('null items and properties are left out; a parameter given null is not sent; a path parameter must be given', () => {
  assert.equal(serializePath(plan('path', 'simple', false), ['a', null, 'b']), 'a,b');
  assert.equal(serializeQuery(plan('query', 'form', true), { R: 1, G: null }).join('&'), 'R=1');
  const plans: ParamPlan[] = [
    plan('path', 'simple', false, { name: 'id' }),
    plan('query', 'form', true, { name: 'q' }),
    plan('query', 'form', true, { name: 'absent' }),
    plan('header', 'simple', false, { name: 'X-Trace' }),
    plan('header', 'simple', false, { name: 'Accept' }),
    plan('cookie', 'form', true, { name: 'session' }),
    plan('cookie', 'form', true, { name: 'lang' }),
  ];
  const values = { 'path:id': 7, 'query:q': 'x y', 'query:absent': null, 'header:X-Trace': 'abc', 'header:Accept': 'text/evil', 'cookie:session': 's1', 'cookie:lang': 'en' };
  assert.deepEqual(serializeParams('/items/{id}', plans, values), {
    path: '/items/7',
    query: 'q=x%20y',
    headers: { 'X-Trace': 'abc', cookie: 'session=s1; lang=en' },
  });
  assert.throws(() => serializeParams('/items/{id}', plans, { 'path:id': null }), /path parameter "id" is required/);
  // a value named like another location's parameter is not taken for it
  assert.equal(serializeParams('/items/{id}', plans, { 'path:id': 1, 'header:q': 'no' }).query, '');
});

test('content parameters are sent as JSON, percent-encoded', () => {
  assert.equal(serializeQuery(plan('query', 'form', true, { content: 'application/json' }), { a: [1, 'x'] }).join('&'), 'color=%7B%22a%22%3A%5B1%2C%22x%22%5D%7D');
});

test('attacks: a header or cookie value with CR/LF or NUL is refused, not sent; nested values and non-finite numbers are refused', () => {
  for (const v of ['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\0b', ['ok', 'b\r\nc'], { k: 'v\n' }]) {
    assert.throws(() => serializeHeader(plan('header', 'simple', false), v), /line break or another control character/, JSON.stringify(v));
  }
  assert.throws(() => serializeHeader(plan('header', 'simple', false), 'snow ☃'), /beyond Latin-1/);
  assert.throws(() => serializeParams('/', [plan('header', 'simple', false)], { 'header:color': 'x\r\ny' }), ParamError);
  // a cookie's value is percent-encoded: CR/LF cannot reach the header
  assert.equal(serializeParams('/', [plan('cookie', 'form', true)], { 'cookie:color': 'x\r\nSet: y' }).headers.cookie, 'color=x%0D%0ASet%3A%20y');
  assert.throws(() => serializeCookie({ ...plan('cookie', 'form', true), name: 'a;b' }, 'x'), /not a cookie name/);
  assert.throws(() => serializeQuery(plan('query', 'form', true), [[1, 2]]), /item 0 is a list/);
  assert.throws(() => serializePath(plan('path', 'simple', false), { a: { b: 1 } }), /property "a" is a map/);
  assert.throws(() => serializeQuery(plan('query', 'form', true), Number.NaN), /not a number the wire can carry/);
  // a path value cannot climb out of its segment
  assert.equal(serializeParams('/files/{color}', [plan('path', 'simple', false)], { 'path:color': '../admin' }).path, '/files/..%2Fadmin');
});
