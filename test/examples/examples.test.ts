// The examples as a newcomer meets them: each header says how to run it and what it needs, the
// commands in the headers of the offline examples work as written, and their output is checked.
// (examples/investment_committee.tn needs a market-data server: test/cli/investment-committee.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JS_STACK, ROOT, turn } from '../cli/run-cli.js';

const EXAMPLES = path.join(ROOT, 'examples');
const names = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.tn')).sort();

/** The comment lines at the top of an example. */
function header(name: string): string[] {
  const lines = fs.readFileSync(path.join(EXAMPLES, name), 'utf8').split('\n');
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return lines.slice(0, end < 0 ? lines.length : end);
}

/** `// needs: ...`: what an example needs; "nothing" means it runs offline with no flags. */
function needs(name: string): string {
  const line = header(name).find((l) => /^\/\/ needs: /.test(l));
  return line ? line.replace(/^\/\/ needs: /, '') : '';
}

const offline = names.filter((n) => needs(n).startsWith('nothing'));

/** A store folder of its own, so runs never touch the clone's .turn/. */
function storeDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'turn-examples-'));
}

function run(args: string[]) {
  const r = turn(args, { env: { TURN_STORE_DIR: storeDir(), TURN_MODEL: undefined } });
  assert.doesNotMatch(r.stderr, JS_STACK);
  return r;
}

test('every example says in its header how to run it and what it needs', () => {
  assert.ok(names.length >= 4, `only ${names.length} examples`);
  for (const name of names) {
    const h = header(name);
    assert.ok(
      h.some((l) => l.includes(`node bin/turn.js run examples/${name}`)),
      `${name}: the header has no \`node bin/turn.js run examples/${name}\` line`,
    );
    assert.notEqual(needs(name), '', `${name}: the header has no \`// needs: ...\` line`);
  }
  assert.deepEqual(offline.sort(), ['agent_investigation.tn', 'hello.tn', 'research_agent.tn', 'review_vote.tn', 'triage_agent.tn']);
});

test('the examples are formatted (turn fmt --check)', () => {
  const r = turn(['fmt', '--check', ...names.map((n) => path.join('examples', n))]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
});

for (const name of offline) {
  test(`${name}: every command in its header runs offline`, () => {
    const commands = header(name)
      .map((l) => /^\/\/\s+node bin\/turn\.js (run .*?)\s*(?:\(.*)?$/.exec(l)?.[1])
      .filter((c): c is string => c !== undefined);
    assert.ok(commands.length >= 1);
    for (const command of commands) {
      const r = run(command.split(/\s+/));
      assert.equal(r.code, 0, `${command}\n${r.stderr}`);
      assert.notEqual(r.stdout, '', command);
    }
  });
}

test('hello.tn greets', () => {
  const r = run(['run', 'examples/hello.tn']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Hello, Turn!\n');
});

test('triage_agent.tn with the mock model: one worker per ticket, every verdict printed and routed', () => {
  const r = run(['run', 'examples/triage_agent.tn', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, -1), [
    'triaging 3 tickets, one worker process each',
    '#1 "I was charged twice for my subscription this month."',
    '   worker <pid 2>: billing, URGENT, confidence 0.9: mock',
    '   next steps: mock',
    '   routed to the billing team',
    '#2 "The export button crashes the app on large projects."',
    '   worker <pid 3>: billing, URGENT, confidence 0.9: mock',
    '   next steps: mock',
    '   routed to the billing team',
    '#3 "How do I invite a colleague to my workspace?"',
    '   worker <pid 4>: billing, URGENT, confidence 0.9: mock',
    '   next steps: mock',
    '   routed to the billing team',
    'urgent tickets: 3 of 3',
  ]);
  // --json: the program's result, the three typed verdicts
  const verdicts = JSON.parse(lines[lines.length - 1]);
  assert.equal(verdicts.length, 3);
  assert.deepEqual(Object.keys(verdicts[0]), ['category', 'urgent', 'summary', 'next_steps']);
});

test('triage_agent.tn with its script fixture: each ticket gets its own verdict, a doubtful one goes to a person', () => {
  const expected = [
    'triaging 3 tickets, one worker process each',
    '#1 "I was charged twice for my subscription this month."',
    "   worker <pid 2>: billing, URGENT, confidence 0.94: Customer was billed twice for this month's subscription.",
    '   next steps: Refund the duplicate charge; Confirm the refund to the customer by email',
    '   routed to the billing team',
    '#2 "The export button crashes the app on large projects."',
    '   worker <pid 3>: bug, URGENT, confidence 0.88: Export crashes the app on large projects.',
    '   next steps: Reproduce with a large project; Attach the crash log to a bug report',
    '   routed to engineering',
    '#3 "How do I invite a colleague to my workspace?"',
    '   worker <pid 4>: question, not urgent, confidence 0.55: How to invite a colleague to a workspace.',
    '   next steps: Send the help article on workspace invitations',
    '   low confidence: a person reviews this verdict before the help desk acts',
    'urgent tickets: 2 of 3',
  ];
  // The workers run concurrently; the fixture picks each reply by its ticket, so any schedule
  // gives the same output.
  for (const seed of [[], ['--seed', '1'], ['--seed', '7']]) {
    const r = run(['run', 'examples/triage_agent.tn', '--model', 'script:examples/triage_agent.replies.json', ...seed]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), expected, seed.join(' '));
  }
});

test('research_agent.tn with the mock model: checks every claim, commits, reports', () => {
  const r = run(['run', 'examples/research_agent.tn', '--model', 'mock', '--allow-knowledge']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 4);
  for (const line of lines.slice(0, 2)) assert.match(line, /^claim\/\d+: (accepted|rejected) by date_in_source@1 \{"claim":/);
  assert.match(lines[2], /^committed \d+, kept as drafts \d+$/);
  assert.match(lines[3], /^report: /);
});

test('review_vote.tn with the mock model: five seeded samples agree 4 to 1; the run\'s seed reaches only the call without its own', () => {
  const plain = run(['run', 'examples/review_vote.tn']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(plain.stdout.trimEnd().split('\n'), [
    'verdict: approve, agreement 0.8',
    'the samples disagree: a person reviews this change',
    'summary: mock',
  ]);
  const seeded = run(['run', 'examples/review_vote.tn', '--seed', '3']);
  assert.equal(seeded.code, 0, seeded.stderr);
  const lines = seeded.stdout.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 2), plain.stdout.trimEnd().split('\n').slice(0, 2), 'the verdict has its own seed');
  assert.notEqual(lines[2], 'summary: mock', 'the summary takes --seed 3');
  assert.deepEqual(run(['run', 'examples/review_vote.tn', '--seed', '3']).stdout, seeded.stdout, 'one seed, one answer');
});
