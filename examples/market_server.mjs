#!/usr/bin/env node
// A market-data server for examples/investment_committee.tn, as examples/market.yaml describes it:
// GET /v1/quotes/{symbol} answers a quote to the bearer key in $TURN_SECRET_MARKET (401 otherwise).
// Quotes are made up, the same for a symbol every time. Listens on 127.0.0.1 only.
//   TURN_SECRET_MARKET=demo-key node examples/market_server.mjs [--port 8080]
// prints `MARKET_URL=http://127.0.0.1:PORT/v1` when it is ready; Ctrl-C stops it. `--port 0` takes
// a free port.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const at = args.indexOf('--port');
const port = at >= 0 ? Number(args[at + 1]) : 8080;
const key = process.env.TURN_SECRET_MARKET;
if (!key || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: TURN_SECRET_MARKET=KEY node examples/market_server.mjs [--port N]');
  process.exit(64);
}

/** A quote derived from the symbol's hash: stable across runs, plausible ranges. */
function quote(symbol) {
  const h = createHash('sha256').update(symbol).digest();
  const pick = (i, lo, hi, digits) => Number((lo + (h[i] / 255) * (hi - lo)).toFixed(digits));
  return { symbol, price: pick(0, 5, 500, 2), pe_ratio: pick(1, 6, 45, 1), debt_to_equity: pick(2, 0.05, 2.5, 2), volatility: pick(3, 0.08, 0.6, 2) };
}

const server = createServer((req, res) => {
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.headers.authorization !== `Bearer ${key}`) return send(401, { error: 'a bearer key is required (TURN_SECRET_MARKET)' });
  const m = /^\/v1\/quotes\/([A-Za-z0-9.\-]{1,12})$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
  if (req.method !== 'GET' || !m) return send(404, { error: 'GET /v1/quotes/{symbol}' });
  send(200, quote(m[1].toUpperCase()));
});
server.listen(port, '127.0.0.1', () => {
  console.log(`MARKET_URL=http://127.0.0.1:${server.address().port}/v1`);
});
process.on('SIGINT', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
