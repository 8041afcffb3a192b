// examples/investment_committee.tn end to end: a local market-data server that only answers the
// right bearer key, the mock model, and the capabilities the example documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ROOT, turnAsync, type AsyncCliResult } from './run-cli.js';

const KEY = 'mk-7d1e0c5a';
const EXAMPLE = path.join(ROOT, 'examples', 'investment_committee.tn');
const EXAMPLE_V1 = path.join(ROOT, 'examples', 'investment_committee_v1.tn');

function run(cwd: string, port: number, extra: string[] = [], example = EXAMPLE): Promise<AsyncCliResult> {
  const args = ['run', example, '--model', 'mock', '--allow-net', '127.0.0.1:*', '--allow-env', 'MARKET_URL', '--allow-read', 'memos', '--allow-write', 'memos', ...extra];
  return turnAsync(args, { cwd, env: { MARKET_URL: `http://127.0.0.1:${port}/v1`, TURN_SECRET_MARKET: KEY, TURN_SCHEMA_DIR: path.join(cwd, '.schemas') } });
}

/** The market-data server: answers `quote` to the right bearer key only; `requests` says what it was asked and whether authorized. */
async function marketServer(quote: Record<string, unknown>): Promise<{ port: number; requests: string[]; close(): void }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization === `Bearer ${KEY}` ? 'authorized' : 'unauthorized'}`);
    if (req.headers.authorization !== `Bearer ${KEY}`) {
      res.statusCode = 401;
      return res.end('{}');
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(quote));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests, close: () => server.close() };
}

test('the investment committee runs end to end with the mock model, in at most 89 lines', async () => {
  assert.ok(fs.readFileSync(EXAMPLE, 'utf8').trimEnd().split('\n').length <= 89, 'no longer than the paper reports');
  const server = await marketServer({ symbol: 'ACME', price: 101.5, pe_ratio: 18.2, debt_to_equity: 0.4, volatility: 0.22 });
  const { port, requests } = server;
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-committee-'));
  fs.mkdirSync(path.join(cwd, 'memos'));
  try {
    const first = await run(cwd, port);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.stdout.split('\n').slice(0, 3), [
      'quote ACME at 101.5',
      'fundamental analyst: buy (confidence 0.9)',
      'risk officer: buy (confidence 0.9)',
    ]);
    assert.deepEqual(requests, ['GET /v1/quotes/ACME authorized']);
    const memo = JSON.parse(fs.readFileSync(path.join(cwd, 'memos', 'ACME.json'), 'utf8'));
    assert.deepEqual(Object.keys(memo), ['symbol', 'decision', 'summary', 'risks'], 'a typed memo');
    assert.ok(!first.stdout.includes(KEY) && !first.stderr.includes(KEY));

    // A second session starts from the memo of the first.
    const trace = path.join(cwd, 'trace.jsonl');
    const second = await run(cwd, port, ['--trace-file', trace]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(fs.readFileSync(trace, 'utf8'), /Previous memo: \{\\"symbol\\"/, "the chair's prompt carries the earlier session's memo");
  } finally {
    server.close();
  }
});

test('the investment committee written the Turn v1 way runs unchanged', async () => {
  const source = fs.readFileSync(EXAMPLE_V1, 'utf8');
  for (const form of ['identity::network(', 'net.get({"url"', 'fs.write({"path"', 'call(main, null)', 'turn {', 'time.sleep(']) {
    assert.ok(source.includes(form), `written with Turn v1's ${form}`);
  }
  const server = await marketServer({ symbol: 'ACME', price: 101.5 });
  const { port, requests } = server;
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-committee-v1-'));
  fs.mkdirSync(path.join(cwd, 'memos'));
  try {
    const out = await run(cwd, port, ['--json'], EXAMPLE_V1);
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 4), [
      'quote ACME at 101.5',
      'fundamental analyst: buy (confidence 0.9)',
      'risk officer: buy (confidence 0.9)',
      'memo: buy mock',
    ]);
    assert.deepEqual(requests, ['GET /v1/quotes/ACME authorized'], 'identity::network sends its secret as a bearer token');
    const memo = JSON.parse(fs.readFileSync(path.join(cwd, 'memos', 'ACME.json'), 'utf8'));
    assert.deepEqual(Object.keys(memo), ['symbol', 'decision', 'summary', 'risks'], 'fs.write with a map wrote the typed memo');
    assert.deepEqual(JSON.parse(lines[4]), memo, 'the result of call(main, null) is the program\'s result');
    assert.ok(!out.stdout.includes(KEY) && !out.stderr.includes(KEY));
  } finally {
    server.close();
  }
});
