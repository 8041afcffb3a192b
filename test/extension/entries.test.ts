import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findEntryBlocks, lensPlaces } from '../../extension/entries.js';

const lines = async (text: string) => (await findEntryBlocks(text)).map((e) => [e.line, e.character]);

describe('findEntryBlocks', () => {
  it('finds top-level `turn {` blocks with their positions', async () => {
    const text = 'struct P { x: Num }\nturn {\n  call("echo", 1);\n}\n  turn{ }\n';
    assert.deepEqual(await lines(text), [
      [1, 0],
      [4, 2],
    ]);
    const [first] = await findEntryBlocks(text);
    assert.equal(text.slice(first.offset, first.offset + 4), 'turn');
  });

  it('accepts comments between `turn` and `{`, and after `;` on the same line', async () => {
    assert.deepEqual(await lines('let a = 1; turn /* main */ {\n}'), [[0, 11]]);
    assert.deepEqual(await lines('turn // entry\n{ }'), [[0, 0]]);
  });

  it('ignores closures, spawned turns, nested blocks, comments and strings', async () => {
    const text = [
      'let f = turn(x: Num) -> Num { return x; };',
      'let g = turn { };',
      'let p = spawn turn() { };',
      'spawn turn { };',
      'turn {',
      '  turn { }',
      '  if x { turn { } }',
      '}',
      '// turn { }',
      '/* turn {',
      '   turn { } */',
      'let s = "turn { }";',
      'let m = "multi',
      'turn { }";',
      'let returned = 1; returnturn { }',
    ].join('\n');
    assert.deepEqual(await lines(text), [[4, 0]]);
  });

  it('counts characters in UTF-16 units and handles CRLF and unterminated input', async () => {
    assert.deepEqual(await lines('let s = "😀"; turn {'), [[0, 14]]);
    assert.deepEqual(await lines('let a = 1;\r\nturn {\r\n}\r\nturn { }'), [
      [1, 0],
      [3, 0],
    ]);
    assert.deepEqual(await lines('/* never closed turn {'), []);
    assert.deepEqual(await lines('let s = "never closed; turn {'), []);
    assert.deepEqual(await lines(''), []);
  });
});

describe('lensPlaces', () => {
  it('a file whose entry is far down (research_agent.tn: line 67) also gets its Run/Debug lenses above its first line', async () => {
    const text = readFileSync(join(__dirname, '../../examples/research_agent.tn'), 'utf8');
    const places = lensPlaces(await findEntryBlocks(text));
    assert.deepEqual(places, [
      { line: 0, character: 0, entryLine: 66 },
      { line: 66, character: 0, entryLine: 66 },
    ]);
  });

  it('an entry near the top gets its lenses only above itself', async () => {
    assert.deepEqual(lensPlaces(await findEntryBlocks('let f = turn() { return 1; };\nturn {\n  f();\n}\n')), [{ line: 1, character: 0, entryLine: 1 }]);
    assert.deepEqual(lensPlaces([]), []);
  });
});
