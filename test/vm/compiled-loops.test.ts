// Hot effect-free loops compiled to JavaScript (runtime/vm/jit/compiled-loops.ts, issue 29). The
// compiled path must be invisible but for speed: the same results, the same errors at the same
// lines, the same step counting (so budgets and the scheduler's fairness hold), never under the
// debugger, and nothing changed for `suspend`. Each test also checks that compiled code did run,
// so a change that silently stops compiling fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileFiles } from './harness.js';
import { VM, type RunOptions, type RunOutcome } from '../../runtime/vm/index.js';
import { Debugger } from '../../runtime/vm/debug.js';
import { compiledLoopEntries, loopSource } from '../../runtime/vm/jit/compiled-loops.js';
import { openStore, resumeRun, startRun } from '../../runtime/index.js';
import type { Bundle } from '../../runtime/compile/index.js';

const ROOT = path.resolve(__dirname, '../..');

interface Ran {
  outcome: RunOutcome;
  lines: string[];
  entries: number;
}

async function runWith(bundle: Bundle, options: RunOptions): Promise<Ran> {
  const lines: string[] = [];
  const vm = new VM(bundle, { output: (l) => lines.push(l), infer: async () => ({ value: null, confidence: 1 }) }, options);
  const outcome = await vm.run();
  return { outcome, lines, entries: vm.compiledLoops?.entries ?? 0 };
}

/** What a run shows: its output and its result, or its error with where it happened. */
function shown(r: Ran): unknown {
  const o = r.outcome;
  return { lines: r.lines, end: o.ok ? o.rendered : { error: o.error.message, line: o.error.line, column: o.error.column } };
}

const INTERPRETED: RunOptions = { compileLoops: false };
/** every loop that can be compiled is, at its first back edge */
const COMPILED: RunOptions = { compileLoops: true, hotLoopAfter: 1 };

/** Runs `source` interpreted only and compiled; asserts they show the same; returns the compiled run. */
async function same(source: string, options: RunOptions = {}): Promise<Ran> {
  const bundle = await compileFiles({ 'main.tn': source });
  const interpreted = await runWith(bundle, { ...options, ...INTERPRETED });
  const compiled = await runWith(bundle, { ...options, ...COMPILED });
  assert.equal(interpreted.entries, 0);
  assert.deepEqual(shown(compiled), shown(interpreted), source);
  return compiled;
}

test('the counting loop of the benchmark runs compiled, with the interpreter\'s result', async () => {
  const source = 'let i = 0;\nlet total = 0;\nwhile i < 1000000 {\n    let total = total + i;\n    let i = i + 1;\n}\nreturn total;';
  const r = await same(source, { maxSteps: 0 });
  assert.ok(r.outcome.ok && r.outcome.json === 499999500000);
  // one entry per slice of 20,000 steps (the loop yields to the scheduler as the interpreter does)
  assert.ok(r.entries >= 49, `entries ${r.entries}`);
  // with the default threshold too (a loop is compiled after 50 back edges)
  const bundle = await compileFiles({ 'main.tn': source });
  const byDefault = await runWith(bundle, { maxSteps: 0, compileLoops: true });
  assert.ok(byDefault.entries > 0 && byDefault.outcome.ok && byDefault.outcome.json === 499999500000);
});

test('what a compiled loop may hold: branches, nested loops, booleans, and/or/not, every operator', async () => {
  const programs = [
    // if/else inside, a nested loop, division, negation
    'let i = 0; let a = 1; let b = 0;\nwhile i < 40 {\n  if i / 2 > 7 and !(a == 3) { let a = a * -1 + 2; } else { let b = b - i; }\n  let j = 0;\n  while j <= i { let b = b + j * 0.5; let j = j + 1; }\n  let i = i + 1;\n}\nreturn [a, b, i];',
    // a boolean flag ends the loop (Turn has no break)
    'let k = 51; let found = false; let at = 0;\nwhile !found {\n  if k / 7 - k / 7 == 0 and k > 60 { let found = true; let at = k; }\n  let k = k + 1;\n}\nreturn at;',
    // `or`, a condition stored in a local, != and >=
    'let i = 10; let odd = false; let n = 0;\nwhile i >= 0 or odd {\n  let odd = !odd;\n  if odd != false { let n = n + i; }\n  let i = i - 1;\n}\nreturn [n, odd, i];',
    // a comparison of two locals as the loop test
    'let i = 0; let n = 25; let s = 0;\nwhile i < n { let s = s + i * i; let i = i + 1; }\nreturn s;',
    // a return from inside the loop, in a function
    'let first = turn(n: Num) -> Num {\n  let i = 0;\n  while i < n {\n    if i * i > 50 { return i; }\n    let i = i + 1;\n  }\n  return -1;\n};\nreturn [first(100), first(3)];',
    // a number as a condition: 0 and NaN are false
    'let i = 0; let n = 0; let z = 1e308 * 10 - 1e308 * 10;\nwhile i < 12 {\n  if i - 3 { let n = n + 1; }\n  if z { let n = n + 100; }\n  let z = i - i;\n  let i = i + 1;\n}\nreturn n;',
    // NaN and infinities are numbers like the others
    'let i = 0; let x = 0; let y = 1;\nwhile i < 10 { let x = x + y / 0.0001 * 1e305; let y = y * -1; let i = i + 1; }\nreturn [x, x == x, i];',
  ];
  for (const source of programs) {
    const r = await same(source);
    assert.ok(r.entries > 0, `the loop ran compiled: ${source}`);
  }
});

test('an error inside a compiled loop: the same message at the same line', async () => {
  // the divisor reaches zero after the loop has been running compiled for a while
  const div = await same('let i = 0;\nlet t = 0;\nwhile i < 100 {\n  let t = t + 100 / (50 - i);\n  let i = i + 1;\n}\nreturn t;');
  assert.ok(div.entries > 0);
  assert.ok(!div.outcome.ok);
  assert.equal(div.outcome.error.message, 'division by zero');
  assert.equal(div.outcome.error.line, 4);
  // caught by a `catch` around the loop, whose locals are where the loop stopped
  const caught = await same('let i = 0;\nlet r = "no error";\ntry {\n  while i < 100 { let x = 1 / (20 - i); let i = i + 1; }\n} catch (e) {\n  let r = e["message"] + " at line " + e["line"];\n}\nreturn [r, i];');
  assert.ok(caught.entries > 0);
  assert.deepEqual(caught.outcome.ok && caught.outcome.json, ['division by zero at line 4', 20]);
  // a local that stops being a number: the loop is not compiled for it, the interpreter reports it
  const text = await same('let i = 0;\nlet s = 0;\nwhile i < 10 {\n  if i == 5 { let s = "five"; }\n  let s = s + 1;\n  let i = i + 1;\n}\nreturn s;');
  assert.ok(text.outcome.ok);
});

test('steps are counted as the interpreter counts them: --max-steps stops a compiled loop at the same point', async () => {
  const source = 'let i = 0;\nlet t = 0;\nwhile i < 100000 {\n  let j = 0;\n  while j < 3 { let t = t + j; let j = j + 1; }\n  let i = i + 1;\n}\nreturn t;';
  for (const maxSteps of [1, 2, 7, 100, 4001, 39999]) {
    const r = await same(source, { maxSteps });
    assert.ok(!r.outcome.ok);
    assert.equal(r.outcome.error.message, `step budget of ${maxSteps} exhausted; raise it with --max-steps`);
  }
  // exactly enough steps: 999 back edges
  const enough = await same('let i = 0; while i < 999 { let i = i + 1; } return i;', { maxSteps: 1000 });
  assert.ok(enough.outcome.ok && enough.entries > 0);
});

/** A small seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random numeric loop program: number locals a b c, a boolean f, nested loops, branches, every operator. */
function loopProgram(seed: number): string {
  const r = random(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const expr = (depth: number): string => {
    if (depth <= 0 || r() < 0.3) return pick(['a', 'b', 'c', 'i', String(int(0, 9)), String(int(-3, 3)), '0.5', '2']);
    if (r() < 0.1) return `-(${expr(depth - 1)})`;
    return `(${expr(depth - 1)} ${pick(['+', '-', '*', '/', '+', '-'])} ${expr(depth - 1)})`;
  };
  const cond = (depth: number): string => {
    const x = r();
    if (depth > 0 && x < 0.15) return `(${cond(depth - 1)} ${pick(['and', 'or'])} ${cond(depth - 1)})`;
    if (depth > 0 && x < 0.22) return `!(${cond(depth - 1)})`;
    if (x < 0.3) return 'f';
    const cmp = pick(['<', '<=', '>', '>=', '==', '!=']);
    // a local against a small whole number or another local: the fused compare-and-jump instructions
    if (x < 0.5) return `${pick(['a', 'b', 'c', 'i'])} ${cmp} ${int(-3, 9)}`;
    if (x < 0.6) return `${pick(['a', 'b', 'c', 'i'])} ${cmp} ${pick(['a', 'b', 'c', 'i'])}`;
    return `${expr(1)} ${cmp} ${expr(1)}`;
  };
  const lines: string[] = [];
  const block = (depth: number, indent: string, counters: string[]) => {
    const n = int(1, 3);
    for (let s = 0; s < n; s++) {
      const x = r();
      if (x < 0.45) lines.push(`${indent}let ${pick(['a', 'b', 'c'])} = ${expr(2)};`);
      else if (x < 0.55) lines.push(`${indent}let f = ${cond(1)};`);
      else if (x < 0.8 && depth < 2) {
        lines.push(`${indent}if ${cond(1)} {`);
        block(depth + 1, indent + '  ', counters);
        if (r() < 0.5) {
          lines.push(`${indent}} else {`);
          block(depth + 1, indent + '  ', counters);
        }
        lines.push(`${indent}}`);
      } else if (depth < 2 && counters.length < 2) {
        const k = counters.length === 0 ? 'i' : 'j';
        const n = int(1, 40);
        const down = r() < 0.3;
        lines.push(`${indent}let ${k} = ${down ? n : 0};`);
        const test = down ? `${k} ${pick(['>', '>='])} ${pick(['0', '1', 'b'])}`
          : r() < 0.6 ? `${k} ${pick(['<', '<='])} ${pick([String(n), String(n), 'b'])}`
          : r() < 0.5 ? `${k} < ${n} and ${cond(0)}` : `!(${k} >= ${n})`;
        lines.push(`${indent}while ${test} {`);
        block(depth + 1, indent + '  ', [...counters, k]);
        lines.push(`${indent}  let ${k} = ${k} ${down ? '-' : '+'} ${pick(['1', '1', '2', '0.5'])};`);
        lines.push(`${indent}}`);
      } else lines.push(`${indent}let c = c + 1;`);
    }
  };
  lines.push(`let a = ${int(-5, 5)};`, `let b = ${int(0, 9)};`, 'let c = 1;', 'let f = true;', 'let i = 0;');
  block(1, '', []);
  // at least one loop at the top
  lines.push(`let i = 0;`, `while i < ${int(5, 60)} {`);
  block(1, '  ', ['i']);
  lines.push('  let i = i + 1;', '}', 'return [a, b, c, f, i];');
  return lines.join('\n');
}

test('seeded random loop programs: compiled and interpreted runs show the same, budgets included', async () => {
  let entered = 0;
  const PROGRAMS = 250;
  for (let seed = 1; seed <= PROGRAMS; seed++) {
    const source = loopProgram(seed);
    const bundle = await compileFiles({ 'main.tn': source });
    for (const options of [{}, { maxSteps: 1 + (seed * 37) % 400 }]) {
      const interpreted = await runWith(bundle, { ...options, ...INTERPRETED });
      const compiled = await runWith(bundle, { ...options, ...COMPILED });
      assert.deepEqual(shown(compiled), shown(interpreted), `seed ${seed} ${JSON.stringify(options)}:\n${source}`);
      if (compiled.entries > 0) entered++;
    }
  }
  // most of them ran compiled code (the rest: a division by zero first thing, a budget spent at once)
  if (process.env.TURN_JIT_TEST_STATS) process.stderr.write(`${entered} of ${2 * PROGRAMS} runs entered compiled code\n`);
  assert.ok(entered > PROGRAMS, `only ${entered} of ${2 * PROGRAMS} runs entered compiled code`);
});

test('what is not compiled: calls, effects, allocation, text, cells', async () => {
  const bundle = await compileFiles({ 'main.tn': 'let i = 0;\nlet s = "";\nwhile i < 100 { let s = s + "x"; let i = i + 1; }\nlet xs = [];\nlet j = 0;\nwhile j < 100 { let xs = call("list_push", xs, j); let j = j + 1; }\nreturn [call("len", s), call("len", xs)];' });
  const r = await runWith(bundle, COMPILED);
  assert.ok(r.outcome.ok && JSON.stringify(r.outcome.json) === '[100,100]');
  assert.equal(r.entries, 0);
  // the translator refuses them outright
  const main = bundle.functions[bundle.units[0].main];
  assert.equal(loopSource(main, 0, main.code.length - 2, Array(main.nslots).fill('n')), null);
});

test('under the debugger loops are interpreted: a breakpoint in a hot loop stops at every iteration', async () => {
  const source = 'let i = 0;\nlet t = 0;\nwhile i < 300 {\n  let t = t + i;\n  let i = i + 1;\n}\nreturn t;';
  const bundle = await compileFiles({ 'main.tn': source });
  const vm = new VM(bundle, { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) }, COMPILED);
  const dbg = new Debugger(vm);
  assert.deepEqual(dbg.setBreakpoints('main.tn', [4]).map((b) => b.line), [4]);
  let stops = 0;
  dbg.onStop = () => {
    stops++;
    dbg.resume('continue');
  };
  const outcome = await vm.run();
  assert.ok(outcome.ok && outcome.json === 44850);
  assert.equal(stops, 300);
  assert.equal(vm.compiledLoops!.entries, 0);
});

test('fairness: a long compiled loop yields like the interpreter; other processes\' messages and timers go first', async () => {
  // the loop needs 250 slices; the other process is spawned first, so it runs after main's first slice
  const messages = await same('let me = call("self");\nspawn turn() { send me, "hello"; };\nlet i = 0;\nwhile i < 5000000 { let i = i + 1; }\nlet got = receive(0);\ncall("echo", "loop done");\nreturn got;');
  assert.ok(messages.entries >= 200);
  assert.ok(messages.outcome.ok && messages.outcome.json === 'hello');
  // a process printing between steps of a counter: its lines come before the loop's end
  const interleaved = await same('spawn turn() { call("echo", "other ran"); };\nlet i = 0;\nwhile i < 1000000 { let i = i + 1; }\ncall("echo", "loop done");');
  assert.deepEqual(interleaved.lines, ['other ran', 'loop done']);
  assert.ok(interleaved.entries > 0);
  // a timer of 1 ms falls due long before 200,000,000 additions end; the scheduler fires it between slices
  const bundle = await compileFiles({ 'main.tn': 'spawn turn() { call("sleep", 1); call("echo", "timer"); };\nlet i = 0;\nwhile i < 200000000 { let i = i + 1; }\ncall("echo", "loop done");' });
  const timer = await runWith(bundle, { ...COMPILED, maxSteps: 0 });
  assert.deepEqual(timer.lines, ['timer', 'loop done']);
  assert.ok(timer.entries > 1000);
});

test('`suspend` after a compiled loop: the run suspends and resumes with the loop\'s values', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-jit-'));
  const store = openStore(path.join(dir, 'st'));
  try {
    fs.writeFileSync(path.join(dir, 'p.tn'), 'let i = 0;\nlet t = 0;\nwhile i < 100000 { let t = t + i; let i = i + 1; }\nsuspend;\nlet j = 0;\nwhile j < 1000 { let t = t - 1; let j = j + 1; }\ncall("echo", "t " + t);\nreturn [t, i, j];\n');
    const before = compiledLoopEntries();
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    assert.ok(compiledLoopEntries() > before, 'the loop before the suspend ran compiled');
    const lines: string[] = [];
    const atResume = compiledLoopEntries();
    const resumed = await resumeRun({ runId: first.id!, cwd: dir, store, onOutput: (l) => lines.push(l) });
    const result = await resumed.start();
    assert.equal(result.kind, 'done');
    assert.deepEqual(result.kind === 'done' ? result.json : null, [4999949000, 100000, 1000]);
    assert.deepEqual(lines, ['t 4999949000']);
    assert.ok(compiledLoopEntries() > atResume, 'the loop after the suspend ran compiled');
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('TURN_NO_JIT=1 turns compilation off for VMs that do not choose', async () => {
  const bundle = await compileFiles({ 'main.tn': 'let i = 0; while i < 1000 { let i = i + 1; } return i;' });
  const saved = process.env.TURN_NO_JIT;
  process.env.TURN_NO_JIT = '1';
  try {
    const vm = new VM(bundle, { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) });
    assert.equal(vm.compiledLoops, null);
    const on = new VM(bundle, { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) }, { compileLoops: true });
    assert.notEqual(on.compiledLoops, null);
  } finally {
    if (saved === undefined) delete process.env.TURN_NO_JIT;
    else process.env.TURN_NO_JIT = saved;
  }
});

test('where Node refuses code from strings, loops are interpreted and the run is unchanged', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-jit-'));
  try {
    const file = path.join(dir, 'run.ts');
    fs.writeFileSync(file, [
      `import { compileFiles } from ${JSON.stringify(path.join(ROOT, 'test/vm/harness.ts'))};`,
      `import { VM } from ${JSON.stringify(path.join(ROOT, 'runtime/vm/index.ts'))};`,
      'void (async () => {',
      "  const bundle = await compileFiles({ 'main.tn': 'let i = 0; let t = 0; while i < 5000 { let t = t + i; let i = i + 1; } return t;' });",
      '  const vm = new VM(bundle, { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) }, { compileLoops: true, hotLoopAfter: 1 });',
      '  const o = await vm.run();',
      '  console.log(JSON.stringify([o.ok && o.json, vm.compiledLoops!.entries]));',
      '})();',
    ].join('\n'));
    const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out.trim()), [12497500, 0]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
