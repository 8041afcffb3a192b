// OpenAPI media types (runtime/absorb/media.ts, wire.ts): which content type a request body goes
// as and how it is encoded, what Accept says, and how a reply is decoded by its Content-Type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptHeader, decodeReply, encodeBody, MediaError, requestMediaType } from '../../runtime/absorb/media.js';
import { encodedWire, openapiReply, openapiRequest } from '../../runtime/absorb/openapi-wire.js';

test('a request body goes as JSON when the operation offers it, whatever the value (a Str too), else form, multipart, text', () => {
  assert.equal(requestMediaType(['application/xml', 'text/plain', 'application/json']), 'application/json');
  assert.equal(requestMediaType(['multipart/form-data', 'application/x-www-form-urlencoded']), 'application/x-www-form-urlencoded');
  assert.equal(requestMediaType(['application/octet-stream', 'text/plain']), 'text/plain');
  assert.deepEqual(encodeBody({ contentType: 'application/json' }, 'a "string"'), { body: '"a \\"string\\""', contentType: 'application/json' });
  assert.deepEqual(encodeBody({ contentType: 'application/json' }, [1, 'x']), { body: '[1,"x"]', contentType: 'application/json' });
  // a JSON body keeps a null: wire_encode left out what the call left out, so this null was written
  // (in a merge patch it removes the field, as the caller meant)
  assert.deepEqual(encodeBody({ contentType: 'application/merge-patch+json' }, { a: 1, b: null }), { body: '{"a":1,"b":null}', contentType: 'application/merge-patch+json' });
  assert.deepEqual(encodeBody({ contentType: 'text/plain' }, 'hello'), { body: 'hello', contentType: 'text/plain' });
  assert.deepEqual(encodeBody({ contentType: 'application/octet-stream' }, 'bytes'), { body: 'bytes', contentType: 'application/octet-stream' });
  assert.throws(() => encodeBody({ contentType: 'text/plain' }, { a: 1 }), MediaError);
});

test('readOnly properties are not sent; form bodies are form-style pairs (lists repeat, maps explode, reserved characters encoded)', () => {
  assert.equal(encodeBody({ contentType: 'application/json', readOnly: ['id'] }, { id: 7, name: 'x' }).body, '{"name":"x"}');
  assert.equal(encodeBody({ contentType: 'application/x-www-form-urlencoded' }, { name: 'a b&c=d', tags: ['x', 'y'], dims: { w: 1, h: 2 } }).body, 'name=a%20b%26c%3Dd&tags=x&tags=y&w=1&h=2');
  assert.equal(encodeBody({ contentType: 'application/x-www-form-urlencoded', encoding: { tags: { style: 'pipeDelimited', explode: false } } }, { tags: ['x', 'y'] }).body, 'tags=x%7Cy');
  assert.throws(() => encodeBody({ contentType: 'application/x-www-form-urlencoded' }, 'not a map'), /map or struct/);
});

test('multipart: one part per property, a file part with a filename, a boundary no part holds, names escaped', () => {
  const { body, contentType } = encodeBody({ contentType: 'multipart/form-data', files: ['file'] }, { file: 'content\r\nwith lines', meta: { a: 1 }, 'we"ird\r\nname': 'v' });
  const boundary = /boundary=(\S+)$/.exec(contentType)![1];
  assert.ok(!'content\r\nwith lines'.includes(boundary));
  const parts = body.split(`--${boundary}`);
  assert.equal(parts.length, 5, 'three parts, the preamble and the close');
  assert.match(parts[1], /^\r\nContent-Disposition: form-data; name="file"; filename="file"\r\nContent-Type: application\/octet-stream\r\n\r\ncontent\r\nwith lines\r\n$/);
  assert.match(parts[2], /name="meta"\r\nContent-Type: application\/json\r\n\r\n\{"a":1\}\r\n$/);
  assert.match(parts[3], /name="we%22ird%0D%0Aname"/, 'a quote or line break in a name cannot end the header');
  assert.equal(parts[4], '--\r\n');
  // the same call makes the same request (a journaled run replays it)
  assert.equal(encodeBody({ contentType: 'multipart/form-data', files: ['file'] }, { file: 'content\r\nwith lines', meta: { a: 1 }, 'we"ird\r\nname': 'v' }).contentType, contentType);
});

test('Accept prefers the JSON types the operation declares; the others follow at a lower weight', () => {
  assert.equal(acceptHeader(['application/xml', 'application/json']), 'application/json, application/xml;q=0.5');
  assert.equal(acceptHeader(['text/plain']), 'text/plain');
  assert.equal(acceptHeader([]), undefined);
  assert.equal(acceptHeader(['application/json\r\nX-Evil: 1']), undefined, 'a declared type with a line break is not sent');
});

test('a reply is decoded by its Content-Type; one the operation does not declare for its status is an error naming both', () => {
  const declared = { '200': ['application/json', 'text/plain'], '4XX': ['application/problem+json'] };
  assert.deepEqual(decodeReply(declared, 200, { 'content-type': 'application/json; charset=utf-8' }, '{"a":1}'), { value: { a: 1 } });
  assert.deepEqual(decodeReply(declared, 200, { 'Content-Type': 'text/plain' }, '{"a":1}'), { value: '{"a":1}' }, 'text stays text');
  assert.deepEqual(decodeReply(declared, 404, { 'content-type': 'application/problem+json' }, '{"title":"x"}'), { value: { title: 'x' } });
  assert.deepEqual(decodeReply(declared, 200, { 'content-type': 'application/xml' }, '<a/>'), { error: 'the reply (HTTP 200) is application/xml, and the operation declares application/json, text/plain for it' });
  assert.deepEqual(decodeReply(declared, 200, {}, '{}'), { error: 'the reply (HTTP 200) is of no declared Content-Type, and the operation declares application/json, text/plain for it' });
  assert.match((decodeReply(declared, 200, { 'content-type': 'application/json' }, '{"a":') as { error: string }).error, /^the reply \(HTTP 200, application\/json\) is not JSON/);
  assert.deepEqual(decodeReply(declared, 204, {}, ''), { value: null });
  assert.deepEqual(decodeReply({ default: ['*/*'] }, 200, { 'content-type': 'image/png' }, 'x'), { value: 'x' });
});

test('openapi_request makes the URL, headers and body from the plan; a refused parameter is an error value, not a request', () => {
  const plan = encodedWire({
    path: '/pets/{id}',
    params: [
      { name: 'id', in: 'path', style: 'label', explode: false },
      { name: 'tags', in: 'query', style: 'pipeDelimited', explode: false },
      { name: 'X-Trace', in: 'header', style: 'simple', explode: false },
      { name: 'session', in: 'cookie', style: 'form', explode: true },
    ],
    body: { contentType: 'application/json' },
    replies: { '200': ['application/xml', 'application/json'] },
  });
  assert.deepEqual(openapiRequest(plan, 'http://h/v1/', { 'path:id': 5, 'query:tags': ['a', 'b'], 'header:X-Trace': 't', 'cookie:session': 's' }, 'text'), {
    url: 'http://h/v1/pets/.5?tags=a%7Cb',
    headers: { 'X-Trace': 't', cookie: 'session=s', accept: 'application/json, application/xml;q=0.5', 'content-type': 'application/json' },
    body: '"text"',
  });
  assert.deepEqual(openapiRequest(plan, 'http://h', { 'path:id': 5, 'header:X-Trace': 'a\r\nInjected: 1' }, null), {
    error: 'header parameter "X-Trace": the value holds a line break or another control character, which would change the request\'s headers: it is not sent',
  });
  assert.deepEqual(openapiReply(plan, { status: 200, headers: { 'content-type': 'application/json' }, body: '[1]' }), { value: [1] });
  assert.throws(() => openapiRequest('{"path":"/"}', 'http://h', {}, null), /written by the absorber/);
});
