// Costs in plain sight (docs/observability.md, *Costs*): a `turn run` that asked a real model ends
// with a token summary on standard error (requests, prompt/cached/completion tokens per model),
// one JSON line with --json, money with a price table (--prices, $TURN_PRICES; none built in), and
// nothing for the mock; a price table that cannot be used is a located usage error. `turn eval`
// counts every HTTP request: a 3-sample self-consistent call is 3, a retried request is 2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { JS_STACK, turnAsync } from '../cli/run-cli.js';
import { evaluate } from '../../runtime/testing/eval.js';
import { parsePriceTable, PriceTableError, tokenSummary, money } from '../../runtime/telemetry/costs.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-costs-'));
const servers: http.Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

/**
 * An OpenAI-compatible model on 127.0.0.1: each answer reports 100 prompt tokens (40 of them
 * cached) and 20 completion tokens; the requests numbered in `fail` get a 503 with Retry-After: 0.
 */
async function model(fail: number[] = []): Promise<{ spec: string; requests: () => number }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      n++;
      if (fail.includes(n)) return void res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}');
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { stream?: boolean };
      const content = JSON.stringify({ value: { ok: true }, confidence: 0.9 });
      const usage = { prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 40 } };
      if (body.stream !== true) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c', choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { spec: `openai:m?base_url=http://127.0.0.1:${port}/v1&logprobs=0`, requests: () => n };
}

function program(name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  return file;
}

const TWO_CALLS = program('two.tn', `struct Ok { ok: Bool };
let a = infer Ok { "Is it fine?"; };
let b = infer Ok with { consistency: 3 } { "Is it still fine?"; };
call("echo", "fine");
`);

const PRICES = path.join(dir, 'prices.json');
fs.writeFileSync(PRICES, JSON.stringify({ currency: 'EUR', per: 1000, models: { 'openai:m': { input: 1, cached: 0.5, output: 2 } } }));

test('a run with a real model ends with its token summary on stderr; with --prices, what it cost', async () => {
  const m = await model();
  const r = await turnAsync(['run', TWO_CALLS, '--model', m.spec, '--allow-net', '127.0.0.1:*'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'fine\n');
  assert.equal(m.requests(), 4, 'one call, then three samples');
  const last = r.stderr.trimEnd().split('\n').at(-1);
  assert.equal(last, 'turn: tokens: openai:m: 4 calls; 400 prompt tokens (160 cached), 80 completion tokens');

  const priced = await turnAsync(['run', TWO_CALLS, '--model', m.spec, '--allow-net', '127.0.0.1:*', '--prices', PRICES], { cwd: dir });
  assert.equal(priced.code, 0, priced.stderr);
  // (240 × 1 + 160 × 0.5 + 80 × 2) / 1000 = 0.48
  assert.deepEqual(priced.stderr.trimEnd().split('\n').slice(-2), ['turn: tokens: openai:m: 4 calls; 400 prompt tokens (160 cached), 80 completion tokens: 0.48 EUR', 'turn: cost: 0.48 EUR']);

  const json = await turnAsync(['run', TWO_CALLS, '--model', m.spec, '--allow-net', '127.0.0.1:*', '--json'], { cwd: dir, env: { TURN_PRICES: PRICES } });
  assert.equal(json.code, 0, json.stderr);
  const summary = JSON.parse(json.stderr.trimEnd().split('\n').at(-1)!) as { tokens: { models: { model: string; calls: number; inputTokens: number; cachedTokens: number; outputTokens: number; cost: number }[]; cost: { total: number; currency: string } } };
  assert.deepEqual(summary.tokens.models.map((x) => [x.model, x.calls, x.inputTokens, x.cachedTokens, x.outputTokens]), [['openai:m', 4, 400, 160, 80]]);
  assert.equal(summary.tokens.cost.currency, 'EUR');
  assert.ok(Math.abs(summary.tokens.cost.total - 0.48) < 1e-9);
});

test('a retried request counts; the mock costs nothing and prints no summary', async () => {
  const m = await model([1]);
  const one = program('one.tn', 'struct Ok { ok: Bool };\nlet a = infer Ok { "Is it fine?"; };\ncall("echo", "ok");\n');
  const r = await turnAsync(['run', one, '--model', m.spec, '--allow-net', '127.0.0.1:*'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(m.requests(), 2);
  assert.match(r.stderr, /turn: tokens: openai:m: 1 call, 1 retried; 100 prompt tokens \(40 cached\), 20 completion tokens\n$/);
  const mock = await turnAsync(['run', one], { cwd: dir });
  assert.equal(mock.code, 0, mock.stderr);
  assert.doesNotMatch(mock.stderr, /tokens:/);
});

test('a price table that cannot be used is a usage error naming the file and the field, before the run', async () => {
  const bad = path.join(dir, 'bad-prices.json');
  fs.writeFileSync(bad, JSON.stringify({ models: { 'openai:m': { input: -1, output: 2 } } }));
  const r = await turnAsync(['run', TWO_CALLS, '--prices', bad], { cwd: dir });
  assert.equal(r.code, 64, r.stderr);
  assert.match(r.stderr, /bad-prices\.json: models\["openai:m"\]\.input must be a number >= 0/);
  assert.doesNotMatch(r.stderr, JS_STACK);
  assert.equal(r.stdout, '', 'nothing ran');
  const missing = await turnAsync(['run', TWO_CALLS, '--prices', path.join(dir, 'nope.json')], { cwd: dir });
  assert.equal(missing.code, 64);
  assert.match(missing.stderr, /cannot read the price table .*nope\.json: ENOENT/);
  for (const [text, message] of [
    ['[1]', /a price table is a JSON object/],
    ['{"models": {"x": {"input": 1}}}', /models\["x"\]\.output must be a number >= 0/],
    ['{"per": 0, "models": {}}', /"per" must be a number of tokens > 0/],
    ['{"currency": "<script>", "models": {}}', /"currency" must be a short name/],
    ['{"models": {"x": {"input": "1e400", "output": 1}}}', /models\["x"\]\.input must be a number >= 0/],
  ] as const) {
    assert.throws(() => parsePriceTable(text, 'p.json'), (e: unknown) => e instanceof PriceTableError && message.test(e.message));
  }
});

test('a model the table does not price is named, and a cheap run does not read as zero', () => {
  const table = parsePriceTable(JSON.stringify({ models: { a: { input: 0.15, output: 0.6 } } }), 'p.json');
  const s = tokenSummary(
    [
      { model: 'a', calls: 1, retries: 0, failed: 0, inputTokens: 100, cachedTokens: 0, outputTokens: 10, unreported: 0 },
      { model: 'b', calls: 1, retries: 0, failed: 0, inputTokens: 5, cachedTokens: 0, outputTokens: 5, unreported: 0 },
    ],
    table,
  );
  assert.deepEqual(s.cost?.unpriced, ['b']);
  assert.equal(money(s.cost.total, 'USD'), '0.000021 USD');
});

test('turn eval counts every HTTP request: a 3-sample call is 3, a retried request 2', async () => {
  const m = await model([2]);
  const report = await evaluate(TWO_CALLS, { samples: 1, model: m.spec, authority: { allowNet: ['127.0.0.1:*'] }, cwd: dir });
  assert.equal(report.samples[0].passed, true, report.samples[0].error);
  assert.equal(m.requests(), 5, 'one call, one retry of a sample, three samples');
  assert.equal(report.samples[0].calls, 5);
});

test("the run panel's view carries the token summary, priced with turn.pricesFile", async () => {
  const { Runner } = await import('../../extension/panel/runner.js');
  const { priceTableFromSettings, readRunSettings } = await import('../../extension/settings.js');
  const m = await model();
  const settings = readRunSettings(<T>(key: string, dflt: T): T => (key === 'pricesFile' ? (path.basename(PRICES) as T) : dflt));
  const prices = priceTableFromSettings(settings, dir);
  const runner = new Runner({ file: TWO_CALLS, options: { model: m.spec, cwd: dir, authority: { allowNet: ['127.0.0.1:*'] } }, publish: () => {}, ...(prices ? { prices } : {}) });
  const view = await runner.start();
  assert.equal(view.status, 'done', JSON.stringify(view.error));
  assert.deepEqual(view.tokens?.lines, ['tokens: openai:m: 4 calls; 400 prompt tokens (160 cached), 80 completion tokens: 0.48 EUR', 'cost: 0.48 EUR']);
  const mock = await new Runner({ file: TWO_CALLS, options: { cwd: dir }, publish: () => {} }).start();
  assert.equal(mock.status, 'done');
  assert.equal(mock.tokens, undefined);
});
