import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, fails, compileFiles } from './harness.js';
import { mockReply, typeToSchema, validate, MOCK_CONFIDENCE } from '../../runtime/infer/index.js';
import { Context } from '../../runtime/context/index.js';
import { runBundle, type Host } from '../../runtime/vm/index.js';
import type { InferDesc } from '../../runtime/compile/index.js';
import { Op } from '../../runtime/compile/index.js';

async function schemaOf(decls: string, type: string): Promise<Record<string, unknown>> {
  const b = await compileFiles({ 'main.tn': `${decls}\nlet v = infer ${type} { "p"; };` });
  const main = b.functions[b.units[0].main];
  for (let ip = 0; ip < main.code.length; ip++) {
    if (main.code[ip] === Op.INFER) {
      const d = main.consts[main.code[ip + 1]] as InferDesc;
      if (d && typeof d === 'object' && 'schema' in d) return d.schema;
    }
  }
  throw new Error('no INFER');
}

test('JSON Schema 2020-12 for structs: all required, no extra properties, nested, lists, enums', async () => {
  const s = await schemaOf(
    'struct Tag { name: Str };\nstruct Review { ok: Bool, score: Num, tags: List<Tag>, mood: "happy" | "sad", notes: List<Str> };',
    'Review',
  );
  assert.deepEqual(s, {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Review',
    type: 'object',
    properties: {
      ok: { type: 'boolean' },
      score: { type: 'number' },
      tags: {
        type: 'array',
        items: { title: 'Tag', type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
      },
      mood: { type: 'string', enum: ['happy', 'sad'] },
      notes: { type: 'array', items: { type: 'string' } },
    },
    required: ['ok', 'score', 'tags', 'mood', 'notes'],
    additionalProperties: false,
  });
  assert.deepEqual(await schemaOf('', 'Num'), { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'number' });
  assert.deepEqual((await schemaOf('', 'List<Bool>')).items, { type: 'boolean' });
  const generic = await schemaOf('struct Box<T> { item: T };', 'Box<Num>');
  assert.deepEqual((generic.properties as Record<string, unknown>).item, { type: 'number' });
  const aliased = await schemaOf('type Level = "low" | "high";\nstruct S { level: Level };', 'S');
  assert.deepEqual((aliased.properties as Record<string, unknown>).level, { type: 'string', enum: ['low', 'high'] });
});

test('mock replies conform to their schema and validation rejects bad replies', async () => {
  const s = await schemaOf('struct A { b: Bool, n: Num, s: Str, l: List<Str>, e: "x" | "y" };', 'A');
  const reply = mockReply(s);
  assert.equal(reply.confidence, MOCK_CONFIDENCE);
  assert.deepEqual(reply.value, { b: true, n: 1, s: 'mock', l: ['mock'], e: 'x' });
  assert.equal(validate(s, reply.value), null);
  assert.notEqual(validate(s, { b: true }), null);
  assert.notEqual(validate(s, { ...(reply.value as object), extra: 1 }), null);
  assert.notEqual(validate(s, { ...(reply.value as object), e: 'z' }), null);
});

test('typeToSchema rejects types a model cannot produce', () => {
  const span = { start: 0, end: 0 };
  const env = { struct: () => undefined, alias: () => undefined };
  assert.throws(() => typeToSchema({ kind: 'NamedType', name: 'Nope', args: [], span }, env), /unknown type Nope/);
  assert.throws(() => typeToSchema({ kind: 'NamedType', name: 'Pid', args: [], span }, env), /cannot be inferred/);
});

test('inferred values are structs of the declared type and carry confidence', async () => {
  const r = await ok(`
    struct Inner { k: Str };
    struct Out { a: Num, inner: Inner, items: List<Inner> };
    let v = infer Out { "give"; };
    call("echo", v);
    call("echo", confidence v);
    call("echo", confidence v.a);
    call("echo", confidence v.inner.k);
    call("echo", confidence (v.a + 1));
    call("echo", confidence (v.a * v.a));
    call("echo", confidence (v.a > 0));
    call("echo", confidence (v.a > 0 and true));
    call("echo", confidence (v.a > 0 or true));
    call("echo", confidence ("s" + v.inner.k));
    call("echo", confidence !(v.a > 0));
    call("echo", confidence 3);
    call("echo", v.items[0].k);
    return v.inner;
  `);
  assert.deepEqual(r.lines, [
    'Out { a: 1, inner: Inner { k: "mock" }, items: [Inner { k: "mock" }] }',
    // `(v.a > 0) or true`: a certain operand is neutral, so the comparison's 0.9 stays
    '0.9', '0.9', '0.9', '0.9', String(0.9 * 0.9), '0.9', '0.9', '0.9', '0.9', '0.9', '1', 'mock',
  ]);
  assert.equal(r.rendered, 'Inner { k: "mock" }');
  assert.deepEqual(r.json, { k: 'mock' });
});

test('infer prompt is the last expression statement; context is passed; the process suspends', async () => {
  const requests: Parameters<Host['infer']>[0][] = [];
  const r = await ok(
    `
    context.system("be brief");
    context.append("turn 1");
    let n = infer Num {
      let who = "Ada";
      "first line";
      "ask " + who;
    };
    call("echo", n);
    return confidence n;
  `,
    {
      infer: async (req) => {
        requests.push(req);
        await new Promise((res) => setTimeout(res, 5));
        return { value: 42, confidence: 1 };
      },
    },
  );
  assert.deepEqual(r.lines, ['42']);
  assert.equal(r.value, 1);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].prompt, 'ask Ada');
  assert.equal(requests[0].typeName, 'Num');
  assert.deepEqual(requests[0].context, ['be brief', 'turn 1']);
  assert.equal(requests[0].pid, 1);
});

test('an invalid reply is a catchable runtime error; host failures too', async () => {
  const bad = await fails('struct S { a: Num };\nlet v = infer S { "x"; };', { infer: async () => ({ value: { a: 'no' }, confidence: 1 }) });
  assert.match(bad.error.message, /^infer S: the reply does not match the schema/);
  assert.equal(bad.error.line, 2);
  const caught = await ok('struct S { a: Num };\ntry { let v = infer S { "x"; }; } catch (e) { return e["type"]; }', {
    infer: async () => ({ value: { a: 1, b: 2 }, confidence: 1 }),
  });
  assert.equal(caught.value, 'InferError');
  const thrown = await fails('let v = infer Str { "x"; };', { infer: async () => { throw new Error('network down'); } });
  assert.match(thrown.error.message, /the model call failed: network down/);
});

test('effects of several processes overlap; results come back per process', async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const r = await ok(
    `
    let pids = spawn_each(["a", "b", "c"], turn(x: Str) -> Str { return infer Str { "echo " + x; }; });
    return gather pids;
  `,
    {
      infer: async (req) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((res) => setTimeout(res, req.prompt === 'echo a' ? 20 : 1));
        inFlight--;
        return { value: req.prompt.toUpperCase(), confidence: 0.5 };
      },
    },
  );
  assert.equal(r.rendered, '["ECHO A", "ECHO B", "ECHO C"]');
  assert.equal(maxInFlight, 3);
});

test('infer List<T> and enums', async () => {
  const r = await ok('let l = infer List<Num> { "nums"; };\nlet e = infer "yes" | "no" { "choose"; };\nreturn [l, e];');
  assert.equal(r.rendered, '[[1], "yes"]');
});

test('Context renders P0, then P2, then P1 and demotes from P1 to P2', () => {
  const c = new Context({ working: 2, episodic: 2 });
  c.addSystem('sys');
  c.append('a');
  c.append('b');
  c.append('c');
  assert.deepEqual(c.render(), ['sys', 'a', 'b', 'c']);
  assert.deepEqual(c.episodic, ['a']);
  c.append('d');
  c.append('e');
  assert.deepEqual(c.render(), ['sys', 'b', 'c', 'd', 'e']);
});

test('runBundle with the mock host directly', async () => {
  const b = await compileFiles({ 'main.tn': 'struct V { ok: Bool };\nreturn infer V { "q"; };' });
  const out = await runBundle(b, { output: () => {}, infer: async (req) => mockReply(req.schema) });
  assert.ok(out.ok);
  if (out.ok) assert.deepEqual(out.json, { ok: true });
});

test('and/or with uncertain operands: min and max of confidences', async () => {
  const r = await ok(`
    let a = infer Bool { "a"; };
    call("echo", confidence (a and true));
    call("echo", confidence (a or true));
    call("echo", confidence (a or a));
    call("echo", (a and false) == false);
    let f = infer Bool { "f"; };
    call("echo", confidence (f and true));
  `, { infer: async (req) => ({ value: req.prompt === 'a', confidence: 0.5 }) });
  // a certain operand is neutral: `a or true` keeps a's confidence
  assert.deepEqual(r.lines, ['0.5', '0.5', '0.5', 'true', '0.5']);
});
