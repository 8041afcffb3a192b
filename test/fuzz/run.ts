// `npm run fuzz [-- --seconds N] [--seed S | --seed random] [--targets a,b]`: the fuzzer.
// Generates and mutates inputs for every target (test/fuzz/targets.ts) in a child process
// (worker.ts) under a watchdog: a case that hangs past HANG_MS or kills the process (a V8 abort,
// a native crash) is caught here and named. Every failure is saved to test/fuzz/corpus/, which the
// unit tier replays (corpus.test.ts), and the run exits 1 when it found one not already there.
// Prints a table of inputs tried per target, and 'N passed, N failed' last.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

const HANG_MS = 30_000;
const ROOT = path.resolve(__dirname, '../..');
const CORPUS = path.join(__dirname, 'corpus');

const { values } = parseArgs({ options: { seconds: { type: 'string' }, seed: { type: 'string' }, targets: { type: 'string' } } });
const seconds = Number(values.seconds ?? 60);
let seed = values.seed === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed ?? 1);
if (!Number.isFinite(seconds) || seconds <= 0 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- [--seconds N] [--seed S|random] [--targets program,text,value-bytes,spec,model-reply,lsp,wire-reply,mcp-result,gguf-header,store]');
  process.exit(64);
}

interface Failure {
  target: string;
  input: string;
  message: string;
}

const tried = new Map<string, number>();
const found: Failure[] = [];

function save(f: Failure): boolean {
  fs.mkdirSync(CORPUS, { recursive: true });
  const id = createHash('sha256').update(f.target + '\0' + f.input).digest('hex').slice(0, 12);
  const file = path.join(CORPUS, `${f.target}-${id}.json`);
  if (fs.existsSync(file)) return false;
  fs.writeFileSync(file, JSON.stringify({ ...f, seed }, null, 2) + '\n');
  return true;
}

/** Runs one worker for `budget` seconds; resolves when it ends (or was killed as hung). */
function runWorker(budget: number): Promise<void> {
  const state = path.join(os.tmpdir(), `turn-fuzz-state-${process.pid}-${seed}.json`);
  fs.rmSync(state, { force: true });
  const args = ['--import', 'tsx', path.join(__dirname, 'worker.ts'), '--seed', String(seed), '--seconds', String(budget), '--state', state];
  if (values.targets) args.push('--targets', values.targets);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const m = JSON.parse(line) as { type: string; target: string; tried: number; input: string; message: string };
        if (m.type === 'stats') tried.set(m.target, (tried.get(m.target) ?? 0) + m.tried);
        else if (m.type === 'failure') found.push({ target: m.target, input: m.input, message: m.message });
        else if (m.type === 'error') console.error(`fuzz: the worker failed: ${m.message}`);
      } catch {
        // a line the program printed: not ours
      }
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let hung = false;
  const watchdog = setInterval(() => {
    let age = 0;
    try {
      age = Date.now() - fs.statSync(state).mtimeMs;
    } catch {
      return; // no case yet
    }
    if (age > HANG_MS) {
      hung = true;
      child.kill('SIGKILL');
    }
  }, 1000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearInterval(watchdog);
      if (hung || code !== 0) {
        let last: { target: string; input: string } | undefined;
        try {
          last = JSON.parse(fs.readFileSync(state, 'utf8')) as { target: string; input: string };
        } catch {
          // the crash came before the first case
        }
        const why = hung ? `the case ran past ${HANG_MS / 1000} s` : `the process died (${signal ?? `exit ${code}`}): ${stderr.split('\n').filter(Boolean).slice(-3).join(' | ')}`;
        if (last) found.push({ target: last.target, input: last.input, message: why });
        else console.error(`fuzz: ${why}`);
      }
      fs.rmSync(state, { force: true });
      resolve();
    });
  });
}

async function main(): Promise<void> {
  const end = Date.now() + seconds * 1000;
  // a worker killed by a hang or a crash is replaced by one with the next seed for the time left
  while (Date.now() < end - 1000) {
    const before = found.length;
    await runWorker(Math.max(1, Math.round((end - Date.now()) / 1000)));
    if (found.length === before) break;
    seed++;
  }
  const fresh = found.filter(save);
  console.log('target        inputs tried');
  for (const [target, n] of tried) console.log(`${target.padEnd(13)} ${n}`);
  for (const f of found) console.log(`FAIL ${f.target}: ${f.message.split('\n')[0]}${fresh.includes(f) ? ' (new, saved to test/fuzz/corpus/)' : ' (already in the corpus)'}`);
  const total = [...tried.values()].reduce((a, b) => a + b, 0);
  console.log(`${total - found.length} passed, ${fresh.length} failed`);
  process.exitCode = fresh.length > 0 ? 1 : 0;
}

void main();
