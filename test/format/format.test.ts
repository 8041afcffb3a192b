// The formatter (runtime/format): idempotent on every fixture and conformance program, never adds,
// drops or reorders a token (comments included), and prints the documented style.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { describe, it } from 'node:test';
import type { Node as CstNode } from 'web-tree-sitter';
import { formatSource } from '../../runtime/format/index.js';
import { createParser } from '../../runtime/syntax/parse.js';
import { allTurnFiles } from '../language-server/helpers.js';

async function tokens(text: string): Promise<string[]> {
  const parser = await createParser();
  const tree = parser.parse(text)!;
  const out: string[] = [];
  const visit = (n: CstNode) => {
    if (n.childCount === 0 || n.type === 'string') out.push(n.type === 'string' || n.type.endsWith('comment') ? text.slice(n.startIndex, n.endIndex) : n.type + ':' + n.text);
    else for (const c of n.children) if (c) visit(c);
  };
  visit(tree.rootNode);
  tree.delete();
  parser.delete();
  return out;
}

async function fmt(text: string): Promise<string> {
  const r = await formatSource(text);
  if (!r.ok) throw new Error(r.message);
  return r.text;
}

const MESSY = `// leading comment
struct   Point{x:Num,y:Num}
struct Box<T> { v: T }
type Pair=List< Num >;
impl Point{ let norm=turn()->Num{return x*x+y*y;}; }
let add=turn(a:Num,b:Num)->Num{ return a+b; };   // trailing comment


let p=Point{x:1,y:-2};
let m={ "a" :1,"b":[1,2 ,3] };
let xs = [
  1,
  2, // two
  3
];
if p.x>0 and !false {call("echo",p.norm());} else if p.y<0 {call( "echo" , "neg" );} else {}
/* block
   comment */
let r = receive(100);
let k = grant identity::bearer("gh");
let s = scope wait_all { task turn() { return 1; }; };
while false {
  // only a comment
}
try { throw "x"; } catch (e) { call("echo", e); }
turn { let v = infer Point { "Give me a point"; }; return v; }
`;

const EXPECTED = `// leading comment
struct Point { x: Num, y: Num }
struct Box<T> { v: T }
type Pair = List<Num>;
impl Point {
    let norm = turn() -> Num {
        return x * x + y * y;
    };
}
let add = turn(a: Num, b: Num) -> Num {
    return a + b;
}; // trailing comment

let p = Point { x: 1, y: -2 };
let m = {"a": 1, "b": [1, 2, 3]};
let xs = [
    1,
    2, // two
    3
];
if p.x > 0 and !false {
    call("echo", p.norm());
} else if p.y < 0 {
    call("echo", "neg");
} else {}
/* block
   comment */
let r = receive(100);
let k = grant identity::bearer("gh");
let s = scope wait_all {
    task turn() {
        return 1;
    };
};
while false {
    // only a comment
}
try {
    throw "x";
} catch (e) {
    call("echo", e);
}
turn {
    let v = infer Point { "Give me a point"; };
    return v;
}
`;

describe('formatter', () => {
  it('prints the documented style', async () => {
    assert.equal(await fmt(MESSY), EXPECTED);
  });

  it('is idempotent and keeps every token, on its own style sample too', async () => {
    assert.equal(await fmt(EXPECTED), EXPECTED);
    assert.deepEqual(await tokens(EXPECTED), await tokens(MESSY));
  });

  const files = allTurnFiles();
  for (const file of files) {
    it(`is idempotent and keeps every token of ${file.split('/').slice(-2).join('/')}`, async () => {
      const text = fs.readFileSync(file, 'utf8');
      const first = await formatSource(text);
      if (!first.ok) {
        // Only files with syntax errors are refused.
        const parser = await createParser();
        const tree = parser.parse(text)!;
        assert.ok(tree.rootNode.hasError, `${file}: ${first.message}`);
        tree.delete();
        parser.delete();
        return;
      }
      assert.equal(await fmt(first.text), first.text);
      assert.deepEqual(await tokens(first.text), await tokens(text));
    });
  }

  it('prints an infer\'s options like a struct literal: inline, or one per line when the source breaks after `{`', async () => {
    const inline = 'let v = infer Str with {max_tokens:200,seed :7} { "x"; };\n';
    assert.equal(await fmt(inline), 'let v = infer Str with { max_tokens: 200, seed: 7 } { "x"; };\n');
    const multi = 'let v = infer Str with {\nconsistency: 3,\n  timeout_ms: k * 1000,\n} { "x"; };\n';
    const out = await fmt(multi);
    assert.equal(out, 'let v = infer Str with {\n    consistency: 3,\n    timeout_ms: k * 1000,\n} { "x"; };\n');
    assert.equal(await fmt(out), out);
    assert.deepEqual(await tokens(out), await tokens(multi));
  });

  it('refuses a file with syntax errors and says where', async () => {
    const r = await formatSource('let a = 1;\nlet = 2;\n');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.line, 2);
  });

  it('keeps text with emoji and CJK intact', async () => {
    assert.equal(await fmt('let 名前="😀 世界";call("echo",名前);'), 'let 名前 = "😀 世界";\ncall("echo", 名前);\n');
  });
});
