// Deep values in a durable run (docs/reliability.md, *Stores and recordings*): the snapshot and the
// journal encode values with an explicit stack, not recursion. Before, a program holding a list
// nested 8,000 deep lost its snapshot at `suspend;` (the encoder ran out of stack, and the resume
// replayed from the start saying the run had no snapshot), and JSON.stringify of such a journal
// payload threw "Maximum call stack size exceeded".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonBytes } from '../../runtime/durable/index.js';

const jsonText = (v: unknown): string => new TextDecoder().decode(jsonBytes(v));
import { runIdOf, turnAsync } from './helpers.js';

test('a run holding an 8,000-deep list suspends with its snapshot and resumes from it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-deep-'));
  fs.writeFileSync(
    path.join(dir, 'p.tn'),
    `let v = [];
let i = 0;
while i < 8000 {
    let v = [v];
    let i = i + 1;
}
suspend;
let d = 0;
let w = v;
while call("len", w) > 0 {
    let w = w[0];
    let d = d + 1;
}
call("echo", "depth " + d);
`,
  );
  const first = await turnAsync(['run', 'p.tn', '--store', 'st'], dir);
  assert.equal(first.code, 0, first.stderr);
  const id = runIdOf(first.stderr);
  const inspected = JSON.parse((await turnAsync(['inspect', id, '--store', 'st', '--json'], dir)).stdout) as { snapshot: { seq: number; error?: string } | null };
  assert.ok(inspected.snapshot && inspected.snapshot.error === undefined, `a readable snapshot: ${JSON.stringify(inspected.snapshot)}`);
  const resumed = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, 'depth 8000\n');
  assert.doesNotMatch(resumed.stderr, /no snapshot|replaying/, 'restored from the snapshot');
});

test("a journal payload's JSON (jsonBytes) at any depth is JSON.stringify's text; a cycle is still refused", () => {
  const shapes: unknown[] = [null, -0, NaN, 'a"b', [1, undefined, () => 1], { a: undefined, b: [{}], d: new Date(0), m: new Map([['k', 1]]) }, { 'q"k': [true, 1e21, 0.5] }];
  for (const shape of shapes) {
    // shallow: JSON.stringify itself (hashes recorded by earlier runs do not change)
    assert.equal(jsonText(shape), JSON.stringify(shape));
    // (jsonBytes: how the journal writes an effect's request and result)
    const DEPTH = 8000;
    let deep: unknown = shape;
    for (let i = 0; i < DEPTH; i++) deep = i % 2 ? [deep, 1] : { k: deep, skipped: undefined };
    assert.throws(() => JSON.stringify(deep), RangeError, 'deep enough that JSON.stringify runs out of stack');
    // the expected text: the levels' openings, the shape, then their closings
    let opening = '';
    let closing = '';
    for (let i = DEPTH - 1; i >= 0; i--) {
      opening += i % 2 ? '[' : '{"k":';
      closing = (i % 2 ? ',1]' : '}') + closing;
    }
    assert.equal(jsonText(deep), opening + (JSON.stringify(shape) ?? 'null') + closing);
  }
  const cycle: unknown[] = [];
  cycle.push(cycle);
  let deep: unknown = cycle;
  for (let i = 0; i < 8000; i++) deep = [deep];
  assert.throws(() => jsonText(deep), /circular/);
});
