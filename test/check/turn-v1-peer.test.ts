// Turn v1's own test programs as a peer suite (issue 40): every program of its Rust tests
// (impl/tests/*.rs, one `r#"..."#` source each) and its .tn files, run by `turn run` (run mode) and
// by `turn check` (check mode). A negative test (Turn v1 expects a "Runtime Type Error", or its
// analyzer's diagnostics) passes
// when it is refused: at run time in run mode, by a diagnostic in check mode. Runs only when
// TURN_V1_SRC names a checkout of github.com/ekizito96/Turn (MIT); skipped, saying so, without one.
//
// The cases that do not pass are listed, each with its reason, in turn-v1-peer.expected.txt:
// the test fails if a listed case passes (take it off the list) or an unlisted one fails.
// TURN_V1_REPORT=1 prints the counts of each mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { checkSource } from '../../runtime/check/index.js';
import { BIN } from '../cli/run-cli.js';

const SRC = process.env.TURN_V1_SRC;
const EXPECTED_FILE = path.join(__dirname, 'turn-v1-peer.expected.txt');

interface PeerProgram {
  name: string;
  source: string;
  negative: boolean;
  /** a .tn file of the checkout is checked and run where it is (its `use` finds its neighbours) */
  file?: string;
}

/** The raw strings `r#"..."#` of a Rust source, in order (found by index: no regex on its text). */
function rawStrings(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf('r#"'); at >= 0; at = text.indexOf('r#"', at)) {
    const end = text.indexOf('"#', at + 3);
    if (end < 0) break;
    out.push(text.slice(at + 3, end));
    at = end + 2;
  }
  return out;
}

/**
 * Whether a Rust test expects its program refused: by Turn v1's VM ("Runtime Type Error") or by
 * its analyzer (diagnostics not empty, or exactly one).
 */
function negativeTest(chunk: string): boolean {
  return chunk.includes('Runtime Type Error') || chunk.includes('!analysis.diagnostics.is_empty()') || chunk.includes('analysis.diagnostics.len(), 1)');
}

/** Every single-source test of impl/tests/*.rs, and every .tn file of the checkout. */
function peerPrograms(root: string): { programs: PeerProgram[]; multiSource: string[] } {
  const programs: PeerProgram[] = [];
  const multiSource: string[] = [];
  const testsDir = path.join(root, 'impl', 'tests');
  for (const file of fs.readdirSync(testsDir).filter((f) => f.endsWith('.rs')).sort()) {
    const chunks = fs.readFileSync(path.join(testsDir, file), 'utf8').split('#[test]').slice(1);
    for (const chunk of chunks) {
      const fn = chunk.indexOf('fn ');
      const name = `${file.replace(/\.rs$/, '')}::${chunk.slice(fn + 3, chunk.indexOf('(', fn)).trim()}`;
      const sources = rawStrings(chunk);
      if (sources.length === 0) continue; // a test of the Rust API, no program
      if (sources.length > 1) {
        multiSource.push(name); // modules written to files by the Rust test: not a program alone
        continue;
      }
      programs.push({ name, source: sources[0], negative: negativeTest(chunk) });
    }
  }
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && !['target', 'node_modules', '.git', 'editor-extensions'].includes(e.name)) walk(p);
      else if (e.isFile() && e.name.endsWith('.tn')) programs.push({ name: path.relative(root, p), source: fs.readFileSync(p, 'utf8'), negative: false, file: p });
    }
  };
  walk(root);
  return { programs, multiSource };
}

/** `turn run` of one program (bounded by --max-time), from a folder of its own: its exit code and its first line on stderr. */
function runMode(file: string, cwd: string): Promise<{ code: number | null; said: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', file, '--max-time', '10'], {
      cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TURN_MODEL: 'mock', TURN_STORE_DIR: path.join(cwd, '.turn') },
    });
    let said = '';
    child.stderr.on('data', (d: Buffer) => {
      if (said.length < 300) said += d.toString();
    });
    child.on('exit', (code) => resolve({ code, said: said.split('\n')[0].slice(0, 200) }));
  });
}

function expectedFailures(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync(EXPECTED_FILE, 'utf8').split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const [key, ...reason] = line.split(' -- ');
    out.set(key.trim(), reason.join(' -- ').trim());
  }
  return out;
}

test("Turn v1's test programs: run mode and check mode, against the expected failures", { skip: SRC === undefined ? 'TURN_V1_SRC is not set (a checkout of github.com/ekizito96/Turn)' : false, timeout: 600_000 }, async () => {
  const { programs, multiSource } = peerPrograms(SRC!);
  assert.ok(programs.length >= 80, `found ${programs.length} programs in ${SRC}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-v1-peer-'));
  const failures = new Map<string, string>();
  const counts = { run: 0, check: 0 };
  const negatives = programs.filter((p) => p.negative);
  const checkedNegatives = { run: 0, check: 0 };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < programs.length) {
      const p = programs[next++];
      const folder = path.join(dir, String(next));
      fs.mkdirSync(folder);
      const file = p.file ?? path.join(folder, 'main.tn');
      if (!p.file) fs.writeFileSync(file, p.source);
      const { code, said } = await runMode(file, folder);
      // a negative test passes when the run is refused with a Turn error (1 or 2), never a crash (70)
      const runOk = p.negative ? code === 1 || code === 2 : code === 0;
      const r = await checkSource(file, p.source);
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      const checkOk = p.negative ? errors.length > 0 : errors.length === 0;
      if (runOk) counts.run++;
      else failures.set(`run:${p.name}`, `exit ${code}: ${said}`);
      if (checkOk) counts.check++;
      else failures.set(`check:${p.name}`, errors[0]?.message.split('\n')[0] ?? 'no diagnostic');
      if (p.negative && runOk) checkedNegatives.run++;
      if (p.negative && checkOk) checkedNegatives.check++;
    }
  };
  await Promise.all([worker(), worker()]);
  if (process.env.TURN_V1_REPORT) {
    process.stdout.write(`# Turn v1 peer suite: ${programs.length} programs (${negatives.length} negative; ${multiSource.length} multi-file tests left out: ${multiSource.join(', ')})\n`);
    process.stdout.write(`# run mode ${counts.run}/${programs.length} (negatives refused ${checkedNegatives.run}/${negatives.length}); check mode ${counts.check}/${programs.length} (negatives reported ${checkedNegatives.check}/${negatives.length})\n`);
    for (const [f, why] of [...failures].sort()) process.stdout.write(`# fails: ${f} -- ${why}\n`);
  }
  const expected = expectedFailures();
  const unexpected = [...failures.keys()].filter((f) => !expected.has(f)).sort();
  const fixed = [...expected.keys()].filter((f) => !failures.has(f)).sort();
  assert.deepEqual(unexpected, [], 'cases that fail and are not in turn-v1-peer.expected.txt');
  assert.deepEqual(fixed, [], 'cases in turn-v1-peer.expected.txt that now pass: take them off the list');
  // every negative test is decided statically (none of them is on the list in check mode)
  assert.equal(checkedNegatives.check, negatives.length);
});
