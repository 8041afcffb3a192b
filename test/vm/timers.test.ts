// Issue 26, point 3: timers fire at their time from the first one on. The first `sleep` of a
// `turn run` used to wait 100-600 ms on a busy machine (V8 tiering the grammar's WebAssembly up
// in the background, runtime/syntax/wasm-tiering.ts) while later ones took a few. Not a timing
// with a fixed number of milliseconds: each wait is held to a ratio of what a plain JavaScript
// `setTimeout` of the same length takes in a fresh Node process, measured in the same test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnAsync } from '../cli/run-cli.js';

/** How many times a plain setTimeout's wall time a Turn timer may take (start-up noise included). */
const RATIO = 10;
const RUNS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The wall time of the first `setTimeout(ms)` of a fresh Node process. */
function plainTimeout(ms: number): Promise<number> {
  const script = `const t = performance.now(); setTimeout(() => console.log(performance.now() - t), ${ms});`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', () => resolve(Number(out.trim())));
  });
}

async function runTurn(source: string): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-timers-'));
  try {
    const file = path.join(dir, 'timers.tn');
    fs.writeFileSync(file, source);
    const r = await turnAsync(['run', file], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('the first sleep(5) of a run takes about what a JavaScript setTimeout(5) takes', { timeout: 180_000 }, async () => {
  const turn: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runTurn('let t = call("now");\ncall("sleep", 5);\ncall("echo", call("json_stringify", {"slept": call("now") - t}));\n');
    turn.push(r.slept as number);
    plain.push(await plainTimeout(5));
  }
  assert.ok(median(turn) >= 4, `sleep(5) returned early: ${turn.join(', ')} ms`);
  assert.ok(median(turn) <= RATIO * median(plain), `sleep(5) took ${turn.join(', ')} ms; setTimeout(5) took ${plain.map((x) => x.toFixed(1)).join(', ')} ms`);
});

test('receive(200) as the first wait of a run gets a message sent after a 5 ms sleep, in about setTimeout(5)', { timeout: 180_000 }, async () => {
  const turn: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runTurn(`
let me = call("self");
let t = call("now");
spawn turn() { call("sleep", 5); send me, "hi"; };
let got = receive(200);
call("echo", call("json_stringify", {"got": got, "waited": call("now") - t}));
`);
    assert.equal(r.got, 'hi', 'receive(200) timed out although the message was sent after 5 ms');
    turn.push(r.waited as number);
    plain.push(await plainTimeout(5));
  }
  assert.ok(median(turn) <= RATIO * median(plain), `the receive waited ${turn.join(', ')} ms; setTimeout(5) took ${plain.map((x) => x.toFixed(1)).join(', ')} ms`);
});
