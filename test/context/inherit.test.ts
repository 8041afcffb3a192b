// A child process starts from its parent's context as it is at the child's creation (seed 001),
// and owns its copy from then on; `call("context_clear")` gives a child an empty one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mock, okJson, runWith } from '../infer/helpers.js';

const PARENT = 'context.system("You are a careful analyst.");\ncontext.append("The customer is Acme.");\n';

test('spawn, spawn_link, spawn_each and scoped tasks send their first request with the parent\'s P0 and P1', async () => {
  const r = await runWith(
    PARENT +
      [
        'let a = spawn turn() { return infer Str { "from spawn"; }; };',
        'let b = spawn_link turn() { return infer Str { "from spawn_link"; }; };',
        'let each = gather spawn_each([1], turn(n: Num) -> Str { return infer Str { "from spawn_each"; }; });',
        'let t = scope wait_all { task turn() { return infer Str { "from task"; }; }; };',
        'let g = gather [a];',
        'let exit = receive;',
        'return "ok";',
      ].join('\n'),
    mock(),
  );
  assert.equal(okJson(r), 'ok');
  const byPrompt = new Map(r.requests.map((q) => [q.prompt, q]));
  for (const prompt of ['from spawn', 'from spawn_link', 'from spawn_each', 'from task']) {
    const q = byPrompt.get(prompt);
    assert.ok(q, `no request "${prompt}" (${[...byPrompt.keys()].join(', ')})`);
    assert.deepEqual(q.tiers.system, ['You are a careful analyst.'], `${prompt}: P0`);
    assert.deepEqual(q.tiers.working, ['The customer is Acme.'], `${prompt}: P1`);
  }
});

test('siblings send a byte-identical rendered prefix; what a child appends stays its own', async () => {
  const r = await runWith(
    PARENT +
      [
        'let kids = spawn_each(["one", "two"], turn(name: Str) -> Str {',
        '    context.append("Only " + name + " knows this.");',
        '    return infer Str { "child " + name; };',
        '});',
        'let results = gather kids;',
        'let mine = infer Str { "parent after"; };',
        'return "ok";',
      ].join('\n'),
    mock(),
  );
  okJson(r);
  const one = r.requests.find((q) => q.prompt === 'child one')!;
  const two = r.requests.find((q) => q.prompt === 'child two')!;
  const parent = r.requests.find((q) => q.prompt === 'parent after')!;
  // the shared part (P0 and the inherited P1) renders to the same bytes for both siblings
  const shared = 'The customer is Acme.';
  assert.equal(Buffer.compare(Buffer.from(one.rendered.system), Buffer.from(two.rendered.system)), 0);
  assert.equal(one.rendered.system, 'You are a careful analyst.');
  const a = Buffer.from(one.rendered.context);
  const b = Buffer.from(two.rendered.context);
  const n = Buffer.byteLength(shared);
  assert.equal(Buffer.compare(a.subarray(0, n), b.subarray(0, n)), 0, 'the inherited context renders to the same bytes');
  assert.equal(a.subarray(0, n).toString(), shared);
  assert.deepEqual(one.tiers.working, ['The customer is Acme.', 'Only one knows this.']);
  assert.deepEqual(two.tiers.working, ['The customer is Acme.', 'Only two knows this.']);
  assert.deepEqual(parent.tiers.working, ['The customer is Acme.'], 'a child\'s append never reaches its parent');
});

test('call("context_clear") gives a child an empty context', async () => {
  const r = await runWith(
    PARENT + 'let k = spawn turn() { call("context_clear"); return infer Str { "isolated"; }; };\nlet g = gather [k];\nreturn "ok";\n',
    mock(),
  );
  okJson(r);
  const q = r.requests.find((x) => x.prompt === 'isolated')!;
  assert.deepEqual([q.tiers.system, q.tiers.working, q.tiers.episodic], [[], [], []]);
});
