import { describe, test } from 'node:test';
import * as zlib from 'node:zlib';
import assert from 'node:assert/strict';
import {
  SerializeError, decodeSnapshot, decodeValue, encodePlainSnapshot, encodeSnapshot, encodeValue, valueHash,
  type ProcessSnapshot, type SnapshotData, type Slot,
} from '../../runtime/store/serialize.js';
import { Cell, ClosureVal, IdentityVal, PidVal, StructVal, Uncertain, VecVal, equals, type Value } from '../../runtime/values/index.js';

const roundTrip = (v: Slot) => decodeValue(encodeValue(v));

/** Deep structural comparison that also checks classes, confidence, -0 and NaN. */
function same(a: unknown, b: unknown, seen = new Map<unknown, unknown>()): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (a === null || typeof a !== 'object') return a === b;
  if (b === null || typeof b !== 'object') return false;
  if (seen.has(a)) return seen.get(a) === b;
  seen.set(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Map) {
    const bm = b as Map<unknown, unknown>;
    if (a.size !== bm.size) return false;
    const ak = [...a.keys()];
    const bk = [...bm.keys()];
    return ak.every((k, i) => k === bk[i] && same(a.get(k), bm.get(k), seen));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k, i) => k === kb[i] && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], seen));
}

describe('serialize: values', () => {
  test('short strings read from the body around the 13-character line, ASCII or not, as keys and values', () => {
    // the reader takes ASCII strings under 13 characters as substrings of the body decoded once, and
    // the others through the UTF-8 decoder: each length on both sides of that line must come back
    const m = new Map<string, Value>();
    const list: Value[] = [];
    for (let n = 0; n <= 40; n++) {
      const ascii = 'k'.repeat(n);
      const other = 'é'.repeat(n);
      m.set(`a${ascii}`, ascii);
      m.set(`u${other}`, other);
      list.push(ascii, other, `${ascii}✓`);
    }
    const back = decodeValue(encodeValue([m, list]));
    assert.ok(equals(back as Value, [m, list] as Value));
    const [bm] = back as [Map<string, Value>, Value[]];
    assert.equal(bm.get('a' + 'k'.repeat(12)), 'k'.repeat(12));
    assert.equal(bm.get('u' + 'é'.repeat(13)), 'é'.repeat(13));
  });

  test('every scalar kind round-trips exactly', () => {
    const values: Slot[] = [
      null, true, false, 0, 1, -1, 127, 128, -129, 2 ** 31, -(2 ** 40), 2 ** 52, -(2 ** 52), 2 ** 53, Number.MAX_SAFE_INTEGER,
      Number.MAX_VALUE, Number.MIN_VALUE, 0.1, -2.5, -0, NaN, Infinity, -Infinity, 1e300,
      '', 'a', 'hello world', 'é', '日本語', '😀 emoji', 'x'.repeat(63), 'x'.repeat(64), 'y'.repeat(100_000), 'ascii then ü'.repeat(10),
      '\ud800 lone high', 'lone low \udc00', '\0nul',
      undefined,
    ];
    for (const v of values) {
      const back = roundTrip(v);
      assert.ok(same(back, v), `${String(v).slice(0, 40)} came back as ${String(back).slice(0, 40)}`);
    }
  });

  test('lists, maps (insertion order), structs, pids, vectors, uncertain values, identity handles', () => {
    const v: Value = [
      [1, 'two', [3, [4]]],
      new Map<string, Value>([['z', 1], ['a', 2], ['m', new Map<string, Value>([['deep', [true]]])]]),
      new StructVal('Point', new Map<string, Value>([['x', 1.5], ['y', -2]])),
      new StructVal('Empty', new Map()),
      new PidVal(0),
      new PidVal(123456),
      new VecVal([0.25, -1, 1e-9, 3]),
      new VecVal([]),
      new Uncertain('maybe', 0.42),
      new Uncertain(new StructVal('Answer', new Map<string, Value>([['ok', true]])), 0.9),
      new IdentityVal('oauth', 'github'),
    ];
    const back = roundTrip(v) as Value[];
    assert.ok(same(back, v));
    // handles are never compared by `equals` (docs/authority.md): the handle is checked below
    assert.ok(equals(back.slice(0, 10), v.slice(0, 10)));
    assert.deepEqual([...(back[1] as Map<string, Value>).keys()], ['z', 'a', 'm']);
    assert.ok(back[8] instanceof Uncertain && back[8].c === 0.42);
    assert.ok(back[10] instanceof IdentityVal && back[10].name === 'github' && back[10].kind === 'oauth');
  });

  test('an identity handle is written as its kind and name only, never a secret', () => {
    const handle = Object.assign(new IdentityVal('env', 'GITHUB_TOKEN'), { secret: 'ghp_SuperSecretValue' });
    const bytes = Buffer.from(encodeValue([handle, new Map([['h', handle]])]));
    assert.ok(bytes.includes('GITHUB_TOKEN'));
    assert.ok(!bytes.includes('ghp_SuperSecretValue'));
    const back = roundTrip(handle) as IdentityVal;
    assert.deepEqual(Object.keys(back).sort(), ['kind', 'name']);
  });

  test('closures by prototype id with their cells; sharing and cycles are preserved', () => {
    const shared = new Cell(10);
    const self = new Cell(null);
    const f = new ClosureVal(3, [shared, self], 'counter');
    self.v = f; // a recursive closure: its own cell holds it
    const g = new ClosureVal(4, [shared], 'reader');
    const list: Value[] = [1];
    list.push(list); // a list that contains itself
    const m = new Map<string, Value>();
    m.set('me', m);
    m.set('list', list);
    const s = new StructVal('Node', new Map<string, Value>());
    s.fields.set('next', s);
    const sharedList: Value[] = ['x'];
    const root: Value[] = [f, g, list, m, s, sharedList, sharedList, new Uncertain(list, 0.5)];

    const back = roundTrip(root) as Value[];
    const [f2, g2, list2, m2, s2, a, b, u] = back as [ClosureVal, ClosureVal, Value[], Map<string, Value>, StructVal, Value[], Value[], Uncertain];
    assert.ok(f2 instanceof ClosureVal && f2.proto === 3 && f2.name === 'counter');
    assert.equal(f2.cells[0], g2.cells[0], 'a cell shared by two closures stays shared');
    assert.equal(f2.cells[0].v, 10);
    f2.cells[0].v = 11;
    assert.equal(g2.cells[0].v, 11);
    assert.equal(f2.cells[1].v, f2, 'the recursive closure holds itself');
    assert.equal(list2[1], list2);
    assert.equal(m2.get('me'), m2);
    assert.equal(m2.get('list'), list2);
    assert.equal(s2.fields.get('next'), s2);
    assert.equal(a, b, 'a list referenced twice is one list');
    assert.equal(u.v, list2);
    assert.equal(u.c, 0.5);
  });

  test('cells on a value stack (boxed locals) round-trip', () => {
    const c = new Cell('boxed');
    const back = roundTrip([c, new ClosureVal(1, [c], 'f')] as unknown as Value) as unknown as [Cell, ClosureVal];
    assert.ok(back[0] instanceof Cell);
    assert.equal(back[1].cells[0], back[0]);
  });

  test('deterministic: the same graph gives the same bytes and hash; a different one does not', () => {
    const make = () => new Map<string, Value>([['a', [1, 2, new StructVal('S', new Map([['f', 'v']]))]], ['b', new Uncertain(3, 0.5)]]);
    assert.deepEqual(encodeValue(make()), encodeValue(make()));
    assert.equal(valueHash(make()), valueHash(make()));
    assert.match(valueHash(make()), /^[0-9a-f]{64}$/);
    const other = make();
    other.set('b', 3);
    assert.notEqual(valueHash(other), valueHash(make()));
    // map insertion order is part of the value (Turn iterates maps in insertion order)
    const ab = new Map<string, Value>([['a', 1], ['b', 2]]);
    const ba = new Map<string, Value>([['b', 2], ['a', 1]]);
    assert.notEqual(valueHash(ab), valueHash(ba));
  });

  test('repeated strings are written once', () => {
    const rows: Value = Array.from({ length: 1000 }, (_, i) => new StructVal('Row', new Map<string, Value>([['identifier', i], ['description', -i]])));
    const size = encodeValue(rows).length;
    // per row: STRUCT tag, type ref (2), count, 2 × (field ref (2), value (1-3)): at most 15 bytes,
    // where the names alone are 24 bytes
    assert.ok(size < 15_000, `1000 structs took ${size} bytes`);
    // string values are written in full every time (only names are remembered) and still round-trip
    const repeated = Array.from({ length: 100 }, () => 'same text') as Value;
    assert.ok(same(roundTrip(repeated), repeated));
  });

  test('map entries of every string shape round-trip (the in-place fast path for short ASCII and its fallbacks)', () => {
    const shared = [1, 2];
    const text = ['', 'a', 'x'.repeat(32), 'y'.repeat(33), 'café', '日本', '\u{1F600}', 'lone \ud800 surrogate', 'key_1'];
    const inner = new Map<string, Value>(text.map((t, i) => [t, i % 2 ? t : shared]));
    const outer = new Map<string, Value>([
      ...text.map((t): [string, Value] => [t, t]),
      ['inner', inner],
      ['again', new Map<string, Value>(text.map((t): [string, Value] => [t, 7]))], // keys now written as references
      ['shared', shared],
    ]);
    const back = roundTrip(outer) as Map<string, Value>;
    assert.ok(same(back, outer));
    assert.equal((back.get('inner') as Map<string, Value>).get(''), back.get('shared'), 'sharing kept next to fast-path strings');
    // cut inside a short key or value: still a SerializeError, never a shorter map
    const bytes = encodeValue(new Map<string, Value>([['key_1', 'value_1']]));
    for (let cut = 5; cut < bytes.length; cut++) assert.throws(() => decodeValue(bytes.subarray(0, cut)), SerializeError);
  });

  test('damaged bytes are a SerializeError, never a wrong value', () => {
    const good = encodeValue([1, 'two', new Map([['k', 'v']])]);
    assert.throws(() => decodeValue(good.subarray(0, good.length - 1)), SerializeError);
    assert.throws(() => decodeValue(new Uint8Array([1, 2, 3, 4, 5])), /bad magic/);
    const badTag = Uint8Array.from(good);
    badTag[4] = 200;
    assert.throws(() => decodeValue(badTag), /unknown tag 200/);
    assert.throws(() => decodeValue(Uint8Array.from([...good, 0])), /trailing bytes/);
    const newer = Uint8Array.from(good);
    newer[3] = 9;
    assert.throws(() => decodeValue(newer), /format 9/);
    // a huge count in a tiny buffer is refused before allocating
    assert.throws(() => decodeValue(Uint8Array.from([0x54, 0x4e, 0x56, 1, 7, 0xff, 0xff, 0xff, 0x7f])), /count .* larger than the data left/);
  });

  test('refuses what is not a Turn value', () => {
    assert.throws(() => encodeValue({ a: 1 } as unknown as Value), /not a Turn value/);
    assert.throws(() => encodeValue((() => 1) as unknown as Value), /not a Turn value/);
  });
});

function processWith(pid: number, entries: number): ProcessSnapshot {
  const memory = new Map<string, Value>();
  for (let i = 0; i < entries; i++) memory.set(`fact_${i}`, `observation number ${i} about the task`);
  const cell = new Cell(memory);
  const closure = new ClosureVal(2, [cell], 'helper');
  return {
    pid,
    state: { status: 1, waiting: 'receive', frames: [{ proto: 2, ip: 17, bp: 0, ret: 0, module: -1 }], deadline: null, cancel: 'none' },
    stack: [closure, cell, 42, undefined, 'x'],
    memory,
    mailbox: [new Map<string, Value>([['type', 'Msg'], ['body', 'hello']]), new PidVal(0)],
    context: {
      limits: { working: 8000, episodic: 32000 },
      system: ['You are careful.'],
      working: ['step 1', 'step 2'],
      episodic: ['old step'],
      tokens: { system: [4], working: [3, -1], episodic: [2] },
    },
    values: { frameClosures: [closure], result: null, failure: new Uncertain('x', 0.3) },
  };
}

/** The state of LEGACY_FORMAT_2: a 300-entry memory with a lone surrogate, structs, non-ASCII keys and sharing. */
function legacyState(): SnapshotData {
  const big = new Map<string, Value>();
  const shared: Value[] = ['shared', 1];
  for (let i = 0; i < 300; i++) {
    const k = i % 50 === 7 ? `ключ_${i}` : `key_${i}`;
    big.set(k, i % 4 === 0 ? i : i % 4 === 1 ? `value_${i} ✓ of the task at hand` : i % 4 === 2 ? `v${i}` : new StructVal('Fact', new Map<string, Value>([['n', i]])));
  }
  big.set('lone\ud800', 'x\udc00');
  big.set('shared', shared);
  const cell = new Cell(big);
  const closure = new ClosureVal(2, [cell], 'helper');
  return {
    bytecodeHash: 'sha256:legacy', semanticsVersion: 'turn-vm/1', seq: 7, scheduler: { ready: [0], next: 1 },
    processes: [{
      pid: 0, state: { status: 1, frames: [{ proto: 2, ip: 17, bp: 0, ret: 0, module: -1 }] },
      stack: [closure, cell, 42, undefined, 'x'], memory: big, mailbox: [shared, new PidVal(0)],
      context: { limits: { working: 8000, episodic: 32000 }, system: ['You are careful.'], working: ['step 1'], episodic: [] },
      values: { frameClosures: [closure], failure: new Uncertain('x', 0.3), again: shared },
    }],
  };
}

/** legacyState() as encodeSnapshot wrote it before format 3 (commit 9b24b5f): format 2, Brotli. */
const LEGACY_FORMAT_2 = Buffer.from(
  'VE5TAhuqGgCAqqqq6t/MxNU8ItOjIJaygjpVedWhoC6VpSYqKipahwWgABLqFFCHgoKqS0VZRViEO4SHu4ObuVf4oQriFBWngAAo' +
  'gIA4FATEKSBOAXEKCKgCCIhTQJwCIqEAAuJQEBBQh4A4BcShICBOQVVVVfV/VzZhBUhYThmXBIu45S0vhzgkH/N4SgiTQ4KrnDLy' +
  '4hlyCz1l+ikzr5IAmQB2iVsm3ON2zTxGnvNyvCRVVVXVv4cg+MkdwAJADBzEHIAhDAQg/jfVWNHI0PJnrXwhmx2q0bLfa38yWPo0' +
  'rU5GSvXybG44FUKgKu18uYQoDCYjFRdlVvYLiFQ838uW8mIqnFRKdXudsgMVFTW78KGKfu5CoKCXlxCoeKkz12/lEE5WVNxqLjXL' +
  'YjJS1V86vcVmewFWflUjebdZdOaas7DyP6i4GBZlvjQVJuM/dPr1rJfXZ7NePt9vvYprU2ESF2Xerafx2FSgXkQqbuStbt4LX47s' +
  'R4lazIczGoJELebDmTR5f5C1+vlMWv/vzz/qnfl62cjrZVYs1rOy3sjac4lazIczmEQDTH7+ZEZV5XU2W4YqbEOcnD8SjLyHnSnY' +
  'v+ckGnDy4uKvi7/frL/5fcaNxuNhPAFvPZ4JjNO/mm/x56lOYJDqE4f0fXjn+IDwbnc0SX3mr6Tm2cjIrL13xlDvTnFNTMwvH62o' +
  '4eOnmL4Gpi8jJjBAfILGXp0R6G4V29h4S2U7907g+79H70eCacYMzfL5ahC+7EYxzZihWV6vhuHrbhTTjBmaZXolDd90UqiREWn5' +
  'biWC7zsp1MiItPy4ksBPnRRq1iztMr9ahEa3im3WLO3S/soydJOXf+ph01Fss2Zpl8HKGpY7K9zYmLz89pEJVsLWXwo3NiaP1Vk3' +
  'AmvlASncnDm6w3rdOoSN8ogU15w5urFZNwxb5fkorjlzdIftuhUNO+UJKdLEhDJ264ZgrzwiRZqYUGz/XAQOuijSvHl6Ozz3CEfd' +
  'K7558/R2fO4ZTrpXfPPm6Z+fhkn1lGoNZ69jmnww+CdTndLV57/EpDJINZ7agorzgUlw0e/scMmCk5PaveI61ZnF5dQUuOp3/gqK' +
  'f5Tq61QfW3LjeuBMEW76MMO/d0m4+vxbKtKWX9wOTIa7fudIDkLZUuT9BWp4uIQSAom+N8TjwCR46gsJgdfIxxYgn1+gwEp0CSWE' +
  'ofE9YqwOnAZhrS8kA0Pj+0SsS4YNhWRgaHyvGJsmadhSSAQi+X4R25JgRyERiOR7RuxKgT2FRLC0vm+MfdMiHCgkC0vre0ccusdw' +
  'FN1SdjZFycLS+v4xjq8wWcNJX0gMJvseEqcDk+BMITGY7OtInEuBC4XEcHS+lIxL0yFcKSQHR+erSVxLhhslQMnB0fmCMm5N0XCn' +
  'kARC8TUl7iXBg0ISCMWXlXiUAk8KSeDpfWUZzz55hBVQSB6e3heXWJUMawrJw9P7+nJYd0KtYYO7EwISO8amJNiys8MlC/5Gx9ie' +
  'mgI7dv4Kin+D2HHsDpwpwh5P8U4ISOwY+5LhwM4NlxyEsqXIwwvUcHQJJQQSfX2J44FJcNIXEgI3HeNUCpwpAUoIQ+PGuWkQLhSS' +
  'gaFxcSkZrhSSgaFx49okDTcKiUAkF7eS4E4hEYjk4l4KPCgkgqV149G0CE8KycLSunh2j2GlckspJSGQ2PHxauWErGGtLylKDCZ7' +
  'xfrAJNhQSAwmu9iUAlsKieHo3Ng2HcKOQnJwdC52JcOeEqDk4Ojc2DdFw4FCEgjFxaEkOFJIAqG4OJYCJwpJ4OndODU9wplC8vD0' +
  'Ls4lw4VC8vD07h8vKxOqFXSCdpAHwdVEtBwE/yZx0ch6+Vw16h4GUS2Eb99OwuVaVI1q02MBqLH/Hz30q1an6PfyohrWAlWdz5qt' +
  'fi8fN79+888XSbisVLaQNdu1aQ==',
  'base64',
);

describe('serialize: snapshots', () => {
  test('a whole VM round-trips: scheduler data, processes, stack, memory, mailbox, context, sharing', () => {
    const data: SnapshotData = {
      bytecodeHash: 'sha256:feed',
      semanticsVersion: 'turn-vm/1',
      seq: 1234,
      scheduler: { queue: [1, 0], nextPid: 2, clock: 1.5, rng: null, used: 99 },
      processes: [processWith(0, 3), processWith(1, 0)],
    };
    const back = decodeSnapshot(encodeSnapshot(data));
    assert.ok(same(back, data));
    const p = back.processes[0];
    // sharing inside one process survives: the closure on the stack, in `values`, and its cell
    assert.equal(p.stack[0], (p.values.frameClosures as Value[])[0]);
    assert.equal(p.stack[1], (p.stack[0] as ClosureVal).cells[0]);
    assert.equal((p.stack[1] as Cell).v, p.memory, 'the cell holds the very memory map');
    assert.equal(p.stack[3], undefined);
    assert.deepEqual(p.context.tokens, { system: [4], working: [3, -1], episodic: [2] });
    assert.deepEqual(encodeSnapshot(back), encodeSnapshot(data), 'deterministic');
  });

  test('snapshot metadata must be plain data', () => {
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 0, scheduler: { bad: new Map() as never }, processes: [] };
    assert.throws(() => encodeSnapshot(data), /only plain objects/);
  });

  test('a truncated or altered snapshot is a SerializeError', () => {
    const bytes = encodeSnapshot({ bytecodeHash: 'h', semanticsVersion: 'v', seq: 3, scheduler: {}, processes: [processWith(0, 10)] });
    for (const cut of [1, 10, bytes.length >> 1, bytes.length - 1]) {
      assert.throws(() => decodeSnapshot(bytes.subarray(0, cut)), SerializeError, `cut at ${cut}`);
    }
    assert.throws(() => decodeSnapshot(encodeValue(1)), /bad magic/);
  });

  test('an agent holding 5,000 memory entries: about 4 bytes of overhead per entry, under JSON', () => {
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [processWith(0, 5000)] };
    const bytes = encodeSnapshot(data);
    let payload = 0;
    for (const [k, v] of data.processes[0].memory) payload += Buffer.byteLength(k) + Buffer.byteLength(v as string);
    // key: tag + length + bytes; value: tag + length + bytes
    assert.ok(bytes.length - payload < 5 * 5000, `${bytes.length} bytes for ${payload} bytes of keys and values`);
    assert.ok(bytes.length < JSON.stringify(Object.fromEntries(data.processes[0].memory)).length);
    const back = decodeSnapshot(bytes);
    assert.equal(back.processes[0].memory.size, 5000);
    assert.equal(back.processes[0].memory.get('fact_4999'), 'observation number 4999 about the task');
  });

  test('a snapshot up to 1 MB is stored as it is (format 5: format 3 and a checksum); a larger one is compressed (format 6), and both decode the same', () => {
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: { n: 1 }, processes: [processWith(0, 5000)] };
    const plain = encodeSnapshot(data);
    assert.equal(plain[3], 5, 'format 5');
    const stream3 = encodePlainSnapshot(data);
    assert.deepEqual(plain.subarray(4, plain.length - 32), stream3.subarray(4), "format 3's stream, then 32 bytes of SHA-256");
    assert.ok(same(decodeSnapshot(plain), data));
    assert.ok(same(decodeSnapshot(stream3), data), 'format 3 (no checksum) still reads');
    const large: SnapshotData = { ...data, processes: [processWith(0, 30_000)] };
    const packed = encodeSnapshot(large);
    const stream = encodePlainSnapshot(large);
    assert.ok(stream.length > 1024 * 1024, `${stream.length} bytes`);
    assert.equal(packed[3], 6, 'format 6');
    assert.ok(packed.length * 4 < stream.length, `${packed.length} compressed bytes for ${stream.length}`);
    assert.ok(same(decodeSnapshot(packed), decodeSnapshot(stream)), 'both formats decode to the same snapshot');
    assert.ok(same(decodeSnapshot(packed), large));
  });

  test("a large map's keys are written in full in a snapshot, and still mix with remembered names", () => {
    const big = new Map<string, Value>();
    for (let i = 0; i < 200; i++) big.set(`key_${i}`, i % 2 ? `value_${i}` : new StructVal('Fact', new Map<string, Value>([['key_1', i]])));
    const small = new Map<string, Value>([['key_1', 'again'], ['key_199', big]]);
    // `key_7` is a name (an object key of the process's state) written before the big map
    const p = { ...processWith(0, 0), state: { key_7: 1 }, memory: big, values: { small, after: 'key_3' } };
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [p] };
    const plain = Buffer.from(encodePlainSnapshot(data));
    // a string in full is its length byte then its text: `\x05key_7` is `key_7` itself, not `key_70`
    const inFull = (s: string) => plain.toString('latin1').split(String.fromCharCode(s.length) + s).length - 1;
    assert.equal(inFull('key_7'), 1, "the state's name key_7; the big map's key_7 is in its text (MAP_TEXT), not a reference to the name");
    assert.equal(inFull('key_1'), 1, 'the struct field name key_1, remembered once for the 100 structs');
    assert.ok(plain.toString('latin1').includes('key_0key_1value_1key_2'), "the big map's keys and string values joined");
    for (const bytes of [plain, encodeSnapshot(data)]) {
      const back = decodeSnapshot(bytes).processes[0];
      assert.ok(same(back.memory, big));
      assert.equal((back.values.small as Map<string, Value>).get('key_199'), back.memory, 'sharing survives');
      assert.equal((back.values.small as Map<string, Value>).get('key_1'), 'again');
      assert.equal(back.values.after, 'key_3');
      assert.deepEqual(back.state, { key_7: 1 });
    }
  });

  test("a value's bytes do not change with the snapshot's encoding: a large map's keys stay remembered in valueHash", () => {
    // pinned: an effect's inputHash recorded by an earlier Turn must match on replay
    const m = new Map<string, Value>();
    for (let i = 0; i < 100; i++) m.set(`k${i}`, i % 3 ? `v${i}` : [`k${i}`, i]);
    assert.equal(valueHash(m), '9076662f98884e30e6b1c2aecc61ccc44821af66218415a33c34675ec8cb98d7');
  });

  test('a damaged compressed body and a newer format are clear SerializeErrors', () => {
    const packed = Buffer.from(encodeSnapshot({ bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [processWith(0, 5000)] }));
    const damaged = Buffer.from(packed);
    damaged.fill(0x5a, 40, 80);
    assert.throws(() => decodeSnapshot(damaged), (e: unknown) => e instanceof SerializeError && /corrupt snapshot/.test(e.message));
    const newer = Buffer.from(encodePlainSnapshot({ bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [] }));
    newer[3] = 7;
    assert.throws(() => decodeSnapshot(newer), /format 7 is newer than this Turn reads \(up to 6\); use a newer Turn/);
  });

  test('a snapshot changed in place is refused by its checksum, wherever the change is, never read as another state', () => {
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 3, scheduler: { n: 41 }, processes: [processWith(0, 10)] };
    for (const bytes of [encodeSnapshot(data), encodeSnapshot({ ...data, processes: [processWith(0, 30_000)] })]) {
      // every byte of the small one; a sample across the compressed one
      const step = bytes.length < 10_000 ? 1 : Math.floor(bytes.length / 997);
      for (let i = 0; i < bytes.length; i += step) {
        for (const flip of [0x01, 0x80]) {
          const altered = Buffer.from(bytes);
          altered[i] ^= flip;
          assert.throws(() => decodeSnapshot(altered), (e: unknown) => e instanceof SerializeError && /corrupt snapshot|bad magic|newer than this Turn/.test(e.message), `byte ${i} ^ ${flip}`);
        }
      }
    }
    // the one change the old format could not see: an integer's byte in place decodes as another integer
    const stream = Buffer.from(encodePlainSnapshot(data));
    const at = stream.indexOf(Buffer.from([3, 82])); // INT 41 (zigzag 82)
    stream[at + 1] = 84; // 42
    assert.equal((decodeSnapshot(stream).scheduler as { n: number }).n, 42, 'format 3 has no checksum: a changed value reads');
    const summed = Buffer.from(encodeSnapshot(data));
    summed[at + 1] = 84;
    assert.throws(() => decodeSnapshot(summed), /its checksum does not match its bytes/);
  });
  test('a snapshot written by the previous build (format 2, and its stream as format 1) still decodes exactly', () => {
    const back = decodeSnapshot(LEGACY_FORMAT_2);
    assert.ok(same(back, legacyState()));
    const p = back.processes[0];
    assert.equal(p.memory.get('shared'), p.mailbox[0], 'sharing between the memory and the mailbox');
    assert.equal(p.memory.get('lone\ud800'), 'x\udc00');
    const stream = zlib.brotliDecompressSync(LEGACY_FORMAT_2.subarray(4));
    assert.ok(same(decodeSnapshot(Buffer.concat([Buffer.from([0x54, 0x4e, 0x53, 1]), stream])), legacyState()), 'format 1');
    // this build writes the same state as format 5: its big map has a lone surrogate, so it stays a MAP
    const now = encodeSnapshot(legacyState());
    assert.equal(now[3], 5);
    assert.ok(same(decodeSnapshot(now), legacyState()));
  });

  test('a large map as MAP_TEXT round-trips exactly: ASCII and not, around the 13-unit line, mixed values, pairs split at a boundary', () => {
    const m = new Map<string, Value>();
    for (let n = 0; n <= 40; n++) {
      m.set(`a${'k'.repeat(n)}`, 'k'.repeat(n));
      m.set(`u${'é'.repeat(n)}`, 'é'.repeat(n));
      m.set(`n${n}`, n % 2 ? [n, `item ${n}`] : new StructVal('Fact', new Map<string, Value>([['n', n]])));
    }
    // a key ending in a high surrogate and a value starting with the low one: the joined text is
    // well-formed, and the split by units gives each back
    m.set('pair\ud83d', '\ude00 joined');
    m.set('😀', '日本語');
    const ascii = new Map<string, Value>();
    for (let i = 0; i < 5000; i++) ascii.set(`key_${i}`, i % 7 ? `value_${i}` : `a longer value number ${i} for the copy path`);
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [{ ...processWith(0, 0), memory: ascii, values: { m, again: m } }] };
    const bytes = encodeSnapshot(data);
    assert.ok(Buffer.from(bytes).includes(Buffer.from('pair😀 joined')), 'the split pair is one character in the text');
    const back = decodeSnapshot(bytes);
    assert.ok(same(back, data));
    assert.equal(back.processes[0].memory.size, 5000);
    assert.equal(back.processes[0].values.again, back.processes[0].values.m, 'sharing survives');
    assert.equal((back.processes[0].values.m as Map<string, Value>).get('pair\ud83d'), '\ude00 joined');
    assert.deepEqual(encodeSnapshot(back), bytes, 'deterministic');
  });

  test("a MAP_TEXT whose lengths do not match its text is a SerializeError", () => {
    const m = new Map<string, Value>();
    for (let i = 0; i < 100; i++) m.set(`k${i}`, `v${i}`);
    // the stream without its checksum, so the reader's own checks are what refuses it
    const bytes = Buffer.from(encodePlainSnapshot({ bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [{ ...processWith(0, 0), memory: m }] }));
    const text = bytes.indexOf('k0v0k1v1');
    const textLength = 2 * (10 * 2 + 90 * 3);
    // after the text, per entry: the key's length, then the value's length + 1; the last value `v99` is 3 units
    const lastValue = text + textLength + 2 * 100 - 1;
    assert.equal(bytes[lastValue], 4);
    assert.ok(same(decodeSnapshot(bytes).processes[0].memory, m));
    for (const [code, message] of [[0x7f, /map value of 126 units past the map's text/], [3, /1 units of the map's text unused/]] as const) {
      const altered = Buffer.from(bytes);
      altered[lastValue] = code;
      assert.throws(() => decodeSnapshot(altered), (e: unknown) => e instanceof SerializeError && message.test(e.message), String(code));
    }
  });

  test('an 8,000-deep value (lists, maps, structs, cells, uncertain values) is written and read without recursion, sharing kept', () => {
    const DEPTH = 8000;
    const shared = ['shared'];
    let v: Value = shared;
    for (let i = 0; i < DEPTH; i++) {
      const k = i % 4;
      v = k === 0 ? [v, i] : k === 1 ? new Map<string, Value>([['in', v], ['s', shared]]) : k === 2 ? new StructVal('Node', new Map<string, Value>([['next', v]])) : new Uncertain(v, 0.5);
    }
    const closure = new ClosureVal(1, [new Cell(v)], 'deep');
    const data: SnapshotData = { bytecodeHash: 'h', semanticsVersion: 'v', seq: 1, scheduler: {}, processes: [{ ...processWith(0, 0), stack: [closure, shared] }] };
    const back = decodeSnapshot(encodeSnapshot(data)).processes[0];
    let at = (back.stack[0] as ClosureVal).cells[0].v;
    let depth = 0;
    while (at !== back.stack[1]) {
      at = Array.isArray(at) ? at[0] : at instanceof Map ? (at.get('in') as Value) : at instanceof StructVal ? (at.fields.get('next') as Value) : (at as Uncertain).v;
      depth++;
    }
    assert.equal(depth, DEPTH, 'every level, down to the shared list itself');
    // (the test's own `same` recurses: the encoding, deterministic, is the comparison)
    assert.equal(valueHash(decodeValue(encodeValue(v))), valueHash(v), 'the value reads back as it was');
  });
});

