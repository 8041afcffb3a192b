// A stream that ends without a reply: a server that answers 200 with an event stream holding no
// choice (a blank line, a keep-alive, nothing) must end the call with a located provider error. The
// decoder's "streamed no choices" used to be thrown after the call was marked settled, so the error
// was dropped: the call never settled, a CLI run exited 0 having printed nothing, and a run inside
// a host that stays up (the editor, the fuzzer) hung.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createModel } from '../../runtime/run/model.js';
import { okJson, runWith } from '../infer/helpers.js';

let server: http.Server;
let url = '';
let body = '';
before(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const PROGRAM = `
struct V { ok: Bool, note: Str };
try { let v = infer V { "judge"; }; return v; } catch (e) { return e; }
`;

for (const [name, stream] of [
  ['a blank line', '\n'],
  ['nothing at all', ''],
  ['only keep-alives', ': ping\n\n: ping\n\n'],
  ['an event with no choices', 'data: {"id":"x","choices":[]}\n\ndata: [DONE]\n\n'],
] as const) {
  test(`an OpenAI-compatible stream of ${name} ends the infer with a catchable provider error`, async () => {
    body = stream;
    const model = createModel(`openai:m?base_url=${url}/v1&logprobs=0&retries=0`, { OPENAI_API_KEY: 'k-test-000000' });
    const r = await runWith(PROGRAM, (req, io) => model.infer(req, io));
    const e = okJson(r) as Record<string, unknown>;
    assert.equal(e.type, 'InferError', JSON.stringify(e));
    assert.equal(e.reason, 'provider');
    assert.match(String(e.message), /streamed no choices/);
    assert.equal(e.line, 3);
  });
}
