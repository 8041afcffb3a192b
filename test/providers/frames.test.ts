// The stream reader (runtime/providers/frames.ts): frames are the same however the bytes are split
// (one byte at a time cuts UTF-8 characters and CRLFs in two), and a line or an SSE event past the
// frame bound is refused however it arrives, with the reader holding no more than the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameTooLarge, readFrames } from '../../runtime/providers/frames.js';

function framesOf(framing: 'sse' | 'ndjson', chunks: Buffer[], max?: number): [string, string | undefined][] {
  const out: [string, string | undefined][] = [];
  const r = readFrames(framing, (data, event) => out.push([data, event]), max);
  for (const c of chunks) r.push(c);
  r.end();
  return out;
}

const bytewise = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => Buffer.from([b]));

test('frames: split anywhere (inside a UTF-8 character, a CRLF) they read the same; the frame bound refuses a long line or event', () => {
  const sse = ': keep-alive\r\n\r\nevent: delta\r\ndata: {"t": "héllo 😀"}\r\ndata: second line\r\n\r\ndata: [DONE]\n\nevent: ping\ndata: {}\n\n';
  const whole = framesOf('sse', [Buffer.from(sse)]);
  assert.deepEqual(whole, [
    ['{"t": "héllo 😀"}\nsecond line', 'delta'],
    ['[DONE]', undefined],
    ['{}', 'ping'],
  ]);
  assert.deepEqual(framesOf('sse', bytewise(sse)), whole);
  const ndjson = '{"a": "ü"}\n\n\r\n{"b": "😀"}';
  assert.deepEqual(framesOf('ndjson', bytewise(ndjson)), [['{"a": "ü"}', undefined], ['{"b": "😀"}', undefined]]);

  // a line just at the bound is read; one byte more is refused, whole or byte by byte
  const at = 'data: ' + 'x'.repeat(94) + '\n\n';
  assert.equal(framesOf('sse', [Buffer.from(at)], 100).length, 1);
  for (const chunks of [[Buffer.from('data: ' + 'x'.repeat(95) + '\n\n')], bytewise('data: ' + 'x'.repeat(95))]) {
    assert.throws(() => framesOf('sse', chunks, 100), (e: unknown) => e instanceof FrameTooLarge && /a line of the stream is over 100 bytes/.test(e.message));
  }
  // short data lines that never end their event add up to the bound
  assert.throws(() => framesOf('sse', [Buffer.from('data: xxxx\n'.repeat(20))], 100), /an event of the stream is over 100 bytes/);
  assert.throws(() => framesOf('ndjson', bytewise('{"x": "' + 'y'.repeat(200)), 100), /a line of the stream is over 100 bytes/);
});
