import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { failure, mock, okJson, runWith } from '../infer/helpers.js';
import { openaiProvider } from '../../runtime/providers/openai.js';
import { anthropicProvider } from '../../runtime/providers/anthropic.js';

test('invoke: the child starts from a snapshot of the caller context; its changes vanish on return', async () => {
  const r = await runWith(
    `
    context.system("sys");
    context.append("parent 1");
    let helper = turn(x: Str) -> Str {
      context.append("child " + x);
      return infer Str { "in child"; };
    };
    let a = invoke helper("a");
    let b = invoke turn() { context.append("block"); context.system("child sys"); return infer Str { "in block"; }; };
    let c = infer Str { "in parent"; };
    return [a, b, c];
    `,
    mock(),
  );
  assert.deepEqual(okJson(r), ['mock', 'mock', 'mock']); // the child's result comes back as a value
  assert.deepEqual(r.requests.map((q) => q.context), [
    ['sys', 'parent 1', 'child a'],
    ['sys', 'child sys', 'parent 1', 'block'],
    ['sys', 'parent 1'],
  ]);
  const kinds = r.events.flatMap((e) => (e.kind === 'invoke.enter' ? [`${e.kind}:${e.depth}`] : e.kind === 'invoke.exit' ? [`${e.kind}:${e.thrown}`] : []));
  assert.deepEqual(kinds, ['invoke.enter:1', 'invoke.exit:false', 'invoke.enter:1', 'invoke.exit:false']);
});

test('invoke: the caller context comes back when the child throws, caught outside or not at all', async () => {
  const r = await runWith(
    `
    context.append("kept");
    let r = "";
    try {
      invoke turn() {
        context.append("lost");
        invoke turn() { context.append("lost too"); throw "boom"; };
      };
    } catch (e) { let r = e; }
    let inner = invoke turn() {
      context.append("inner");
      try { throw "x"; } catch (e) { context.append("after catch"); }
      return infer Str { "inside"; };
    };
    let last = infer Str { "after"; };
    return r;
    `,
    mock(),
  );
  assert.equal(okJson(r), 'boom');
  assert.deepEqual(r.requests.map((q) => q.context), [
    ['kept', 'inner', 'after catch'], // a throw caught inside the child does not end the invocation
    ['kept'],
  ]);
  const exits = r.events.filter((e) => e.kind === 'invoke.exit').map((e) => e.thrown);
  assert.deepEqual(exits, [true, true, false]);

  const uncaught = await runWith('context.append("a");\ninvoke turn() { throw "bad"; };', mock());
  assert.match(failure(uncaught).message, /uncaught error: bad/);
  assert.equal(failure(uncaught).line, 2);
});

test('invoke does not roll back memory or other effects; a plain call shares the caller context', async () => {
  const r = await runWith(
    `
    let f = turn() { context.append("from plain call"); remember("k", "written in f"); return 1; };
    invoke turn() { remember("k2", "written in invoke"); call("echo", "effect in invoke"); context.append("gone"); return null; };
    f();
    return [recall("k"), recall("k2"), infer Str { "q"; }];
    `,
    mock(),
  );
  assert.deepEqual(okJson(r), ['written in f', 'written in invoke', 'mock']);
  assert.deepEqual(r.lines, ['effect in invoke']);
  assert.deepEqual(r.requests[0].context, ['from plain call']);
});

test('prompt caching: children forked from a large context all share the parent prefix bytes', async () => {
  const rules = Array.from({ length: 40 }, (_, i) => `Rule ${i}: be precise about item ${i}.`).join('\n');
  const r = await runWith(
    `
    context.system("${rules.replace(/\n/g, '\\n')}");
    let i = 0;
    while i < 200 { context.append({"turn": i, "note": "observation number " + i}); let i = i + 1; }
    let base = infer Str { "parent question"; };
    let answers = map(["a", "b", "c", "d", "e"], turn(x: Str) -> Str {
      return invoke turn() { context.append("child task " + x); return infer Str { "child " + x; }; };
    });
    let again = infer Str { "parent again"; };
    return answers;
    `,
    mock(),
  );
  okJson(r);
  assert.equal(r.requests.length, 7);
  const [parent, ...rest] = r.requests;
  const children = rest.slice(0, 5);
  const again = rest[5];
  const parentPrefix = parent.rendered.system + '\u0000' + parent.rendered.context;
  assert.ok(parent.rendered.prefixBytes.context > 8000, 'a large context');
  for (const child of children) {
    const childPrefix = child.rendered.system + '\u0000' + child.rendered.context;
    // The child's prefix is the parent's, byte for byte, plus what the child appended.
    assert.ok(childPrefix.startsWith(parentPrefix));
    assert.equal(child.rendered.context.slice(parent.rendered.context.length), '\n\nchild task ' + child.prompt.slice(6));
    const shared = createHash('sha256').update(Buffer.from(childPrefix).subarray(0, Buffer.byteLength(parentPrefix))).digest('hex');
    assert.equal(shared, parent.rendered.prefixHash);
  }
  // After the children return, the parent's prefix is exactly what it was: same hash, same bytes.
  assert.equal(again.rendered.prefixHash, parent.rendered.prefixHash);
  // And on the wire: every request body of a chat provider starts with the same bytes up to the end of the shared context.
  for (const provider of [
    openaiProvider({ model: 'm', baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'K', keyRequired: false, structured: 'strict', logprobs: true }),
    anthropicProvider({ model: 'm', baseUrl: 'http://127.0.0.1:1', apiKeyEnv: 'K', maxTokens: 100, version: '2023-06-01' }),
  ]) {
    const bodies = r.requests.map((q) => provider.encode(q).body);
    const contextJson = JSON.stringify(parent.rendered.context).slice(0, -1); // the context as a JSON string, without its closing quote
    const end = bodies[0].indexOf(contextJson) + contextJson.length;
    assert.ok(end > 8000, provider.name);
    for (const b of bodies) assert.equal(b.slice(0, end), bodies[0].slice(0, end), provider.name);
  }
  // The trace records the prefix hash of every request.
  const hashes = r.events.filter((e) => e.kind === 'infer.request').map((e) => (e.prefix as { hash: string }).hash);
  assert.equal(hashes[0], parent.rendered.prefixHash);
  assert.equal(hashes[6], parent.rendered.prefixHash);
});
