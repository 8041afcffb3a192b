// examples/investment_committee.tn needs a market-data server; only the tests started one (issue 28,
// "a newcomer's first hour"). examples/market_server.mjs is that server: this runs the example the
// way its header says, against the script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, turnAsync } from './run-cli.js';

test('examples/market_server.mjs serves the investment committee as its header says', async () => {
  const header = fs.readFileSync(path.join(ROOT, 'examples', 'investment_committee.tn'), 'utf8').split('\n').filter((l) => l.startsWith('//'));
  assert.ok(header.some((l) => l.includes('node examples/market_server.mjs')), 'the header says how to start the server');
  const server = spawn(process.execPath, [path.join(ROOT, 'examples', 'market_server.mjs'), '--port', '0'], {
    env: { ...process.env, TURN_SECRET_MARKET: 'demo-key' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /MARKET_URL=(\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      server.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
    });
    const unauthorized = await fetch(`${url}/quotes/ACME`);
    assert.equal(unauthorized.status, 401);
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-market-'));
    fs.mkdirSync(path.join(cwd, 'memos'));
    const args = ['run', path.join(ROOT, 'examples', 'investment_committee.tn'), '--model', 'mock', '--allow-net', '127.0.0.1:*', '--allow-env', 'MARKET_URL', '--allow-read', 'memos', '--allow-write', 'memos'];
    const r = await turnAsync(args, { cwd, env: { MARKET_URL: url, TURN_SECRET_MARKET: 'demo-key', TURN_SCHEMA_DIR: path.join(cwd, '.schemas') } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^quote ACME at \d+(\.\d+)?$/m);
    const memo = JSON.parse(fs.readFileSync(path.join(cwd, 'memos', 'ACME.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(memo), ['symbol', 'decision', 'summary', 'risks']);
  } finally {
    server.kill('SIGTERM');
  }
});
