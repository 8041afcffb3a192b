// Tokenizes Turn snippets with the TextMate grammar VS Code uses (vscode-textmate + oniguruma)
// and checks the scopes of chosen tokens, so a broken or regressed grammar fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

const root = path.resolve(__dirname, '../..');
const grammarPath = path.join(root, 'syntaxes/turn.tmLanguage.json');
const grammarText = readFileSync(grammarPath, 'utf8');

interface Token {
  line: number;
  text: string;
  scopes: string[];
}

let grammar: vsctm.IGrammar;

before(async () => {
  const require = createRequire(__filename);
  const wasm = readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.turn' ? vsctm.parseRawGrammar(grammarText, grammarPath) : null,
  });
  const loaded = await registry.loadGrammar('source.turn');
  assert.ok(loaded, 'grammar source.turn loads');
  grammar = loaded;
});

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let state = vsctm.INITIAL;
  source.split('\n').forEach((lineText, line) => {
    const result = grammar.tokenizeLine(lineText, state);
    for (const t of result.tokens) {
      tokens.push({ line, text: lineText.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    state = result.ruleStack;
  });
  return tokens;
}

/** The innermost scope of the `nth` token whose text is exactly `text`. */
function scopeOf(tokens: Token[], text: string, nth = 0): string {
  const matches = tokens.filter((t) => t.text === text);
  const token = matches[nth];
  assert.ok(token, `no token ${JSON.stringify(text)} #${nth} in ${JSON.stringify(tokens.map((t) => t.text))}`);
  return token.scopes[token.scopes.length - 1];
}

function allScopesOf(tokens: Token[], text: string, nth = 0): string[] {
  const token = tokens.filter((t) => t.text === text)[nth];
  assert.ok(token, `no token ${JSON.stringify(text)}`);
  return token.scopes;
}

describe('Turn TextMate grammar', () => {
  it('scopes doc comments, check annotations and the optional mark (issue 23)', () => {
    const tokens = tokenize('/// A contact.\nstruct C { email: Str? @pattern("^a"), n: Num }\n//// plain');
    assert.equal(allScopesOf(tokens, '/// A contact.'.slice(3)).includes('comment.line.documentation.turn'), true);
    assert.equal(scopeOf(tokens, '?'), 'keyword.operator.type.optional.turn');
    assert.equal(scopeOf(tokens, '@'), 'punctuation.definition.annotation.turn');
    assert.equal(scopeOf(tokens, 'pattern'), 'storage.type.annotation.turn');
    const plain = tokens.filter((t) => t.line === 2);
    assert.ok(plain.length > 0 && plain.every((t) => t.scopes.includes('comment.line.double-slash.turn')), 'four slashes are a plain comment');
  });

  it('scopes `with` before an infer\'s options as a keyword, and a variable named with as no keyword', () => {
    const tokens = tokenize('let v = infer Verdict with { seed: 7 } { "x"; };\nlet with = 1;');
    assert.equal(scopeOf(tokens.filter((t) => t.line === 0), 'with'), 'keyword.other.agent.turn');
    const named = tokens.filter((t) => t.line === 1 && t.text.includes('with'));
    assert.ok(named.length === 1 && !named[0].scopes.some((s) => s.startsWith('keyword')), JSON.stringify(named));
  });

  it('scopes `ask` before a type as a keyword (issue 43), and a variable named ask as no keyword', () => {
    const tokens = tokenize('let d = ask Decision { "x"; };\nlet ask = 1;\nask + ask(2);');
    assert.equal(scopeOf(tokens.filter((t) => t.line === 0), 'ask'), 'keyword.other.agent.turn');
    const named = tokens.filter((t) => t.line > 0 && t.text.includes('ask'));
    assert.ok(named.length === 3 && named.every((t) => !t.scopes.some((s) => s.startsWith('keyword'))), JSON.stringify(named));
  });

  it('has the scope name package.json registers', () => {
    assert.equal(JSON.parse(grammarText).scopeName, 'source.turn');
  });

  it('compiles every regular expression with oniguruma', () => {
    const patterns: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if ((k === 'match' || k === 'begin' || k === 'end' || k === 'while') && typeof v === 'string') patterns.push(v);
          else walk(v);
        }
      }
    };
    walk(JSON.parse(grammarText));
    assert.ok(patterns.length > 20, `found ${patterns.length} patterns`);
    // The check itself is real: a broken pattern throws.
    assert.throws(() => new oniguruma.OnigScanner(['(unclosed']));
    for (const p of patterns) {
      assert.doesNotThrow(() => new oniguruma.OnigScanner([p]).dispose(), `pattern ${p}`);
    }
  });

  it('scopes comments', () => {
    const tokens = tokenize('let x = 1; // trailing note\n/* block\n   spans lines */ let y = 2;');
    assert.equal(scopeOf(tokens, ' trailing note'), 'comment.line.double-slash.turn');
    assert.equal(scopeOf(tokens, '//'), 'punctuation.definition.comment.turn');
    assert.equal(scopeOf(tokens, ' block'), 'comment.block.turn');
    assert.equal(scopeOf(tokens, '   spans lines '), 'comment.block.turn');
    // Code after the block comment is code again.
    assert.equal(scopeOf(tokens, 'let', 1), 'storage.type.let.turn');
  });

  it('scopes strings, escapes and multi-line strings', () => {
    const tokens = tokenize('let s = "say \\"hi\\"\\n\\u{1F600} // not a comment";\nlet m = "first\nsecond";\nlet after = 3;');
    assert.equal(scopeOf(tokens, 'say '), 'string.quoted.double.turn');
    assert.equal(scopeOf(tokens, '\\"'), 'constant.character.escape.turn');
    assert.equal(scopeOf(tokens, '\\n'), 'constant.character.escape.turn');
    assert.equal(scopeOf(tokens, '\\u{1F600}'), 'constant.character.escape.turn');
    assert.equal(scopeOf(tokens, ' // not a comment'), 'string.quoted.double.turn');
    assert.equal(scopeOf(tokens, 'first'), 'string.quoted.double.turn');
    assert.equal(scopeOf(tokens, 'second'), 'string.quoted.double.turn');
    assert.equal(scopeOf(tokens, 'after'), 'variable.other.declaration.turn');
    assert.equal(scopeOf(tokens, '3'), 'constant.numeric.decimal.turn');
    assert.equal(scopeOf(tokenize('"bad \\q"'), '\\q'), 'invalid.illegal.unknown-escape.turn');
  });

  it('scopes numbers', () => {
    const tokens = tokenize('let a = 42 + 3.14 * 1e-3;');
    assert.equal(scopeOf(tokens, '42'), 'constant.numeric.decimal.turn');
    assert.equal(scopeOf(tokens, '3.14'), 'constant.numeric.decimal.turn');
    assert.equal(scopeOf(tokens, '1e-3'), 'constant.numeric.decimal.turn');
    assert.equal(scopeOf(tokens, '+'), 'keyword.operator.arithmetic.turn');
  });

  it('scopes the keywords of the language (docs/language.md)', () => {
    const source = [
      'turn {',
      '  let r = infer Verdict { "judge"; };',
      '  if confidence r < 0.5 and true or false { throw "low"; } else { return null; }',
      '  while x { suspend; }',
      '  try { send pid, 1; } catch (e) { remember("k", receive); }',
      '  let kids = spawn_each(xs, turn(x: Num) -> Num { return x; });',
      '  let all = gather kids;',
      '  context.system("p"); context.append(recall("k"));',
      '  let v = vec [1, 2] ~> vec [2, 1];',
      '  call("echo", map(xs, f));',
      '}',
    ].join('\n');
    const tokens = tokenize(source);
    const expect: [string, string][] = [
      ['turn', 'storage.type.function.turn'],
      ['infer', 'keyword.other.agent.turn'],
      ['if', 'keyword.control.conditional.turn'],
      ['confidence', 'keyword.other.agent.turn'],
      ['and', 'keyword.operator.logical.turn'],
      ['or', 'keyword.operator.logical.turn'],
      ['true', 'constant.language.boolean.turn'],
      ['null', 'constant.language.null.turn'],
      ['throw', 'keyword.control.exception.turn'],
      ['else', 'keyword.control.conditional.turn'],
      ['return', 'keyword.control.return.turn'],
      ['while', 'keyword.control.loop.turn'],
      ['suspend', 'keyword.other.agent.turn'],
      ['try', 'keyword.control.exception.turn'],
      ['catch', 'keyword.control.exception.turn'],
      ['send', 'keyword.other.actor.turn'],
      ['receive', 'keyword.other.actor.turn'],
      ['remember', 'keyword.other.agent.turn'],
      ['spawn_each', 'keyword.other.actor.turn'],
      ['gather', 'keyword.other.actor.turn'],
      ['context', 'keyword.other.agent.turn'],
      ['system', 'keyword.other.agent.turn'],
      ['append', 'keyword.other.agent.turn'],
      ['recall', 'keyword.other.agent.turn'],
      ['vec', 'keyword.other.vec.turn'],
      ['~>', 'keyword.operator.similarity.turn'],
      ['->', 'keyword.operator.arrow.turn'],
      ['call', 'keyword.other.call.turn'],
      ['map', 'support.function.builtin.turn'],
    ];
    for (const [text, scope] of expect) assert.equal(scopeOf(tokens, text), scope, `token ${text}`);
    // The closure's `turn` too, not only the entry block's.
    assert.equal(scopeOf(tokens, 'turn', 1), 'storage.type.function.turn');
  });

  it('scopes declarations, use and the remaining keywords', () => {
    const tokens = tokenize(
      'use "std/fs";\nuse_wasm "m.wasm";\nstruct Point { x: Num }\nimpl Point { }\ntype Level = "low" | "high";\nlet p = spawn turn() { };\nlet q = spawn_link turn() { };\nlet ys = filter(xs, f);',
    );
    assert.equal(scopeOf(tokens, 'use'), 'keyword.control.import.turn');
    assert.equal(scopeOf(tokens, 'use_wasm'), 'keyword.control.import.turn');
    assert.equal(scopeOf(tokens, 'struct'), 'storage.type.struct.turn');
    assert.equal(scopeOf(tokens, 'Point'), 'entity.name.type.turn');
    assert.equal(scopeOf(tokens, 'impl'), 'storage.type.impl.turn');
    assert.equal(scopeOf(tokens, 'type'), 'storage.type.type.turn');
    assert.equal(scopeOf(tokens, 'Level'), 'entity.name.type.alias.turn');
    assert.equal(scopeOf(tokens, '|'), 'keyword.operator.type.union.turn');
    assert.equal(scopeOf(tokens, 'spawn'), 'keyword.other.actor.turn');
    assert.equal(scopeOf(tokens, 'spawn_link'), 'keyword.other.actor.turn');
    assert.equal(scopeOf(tokens, 'filter'), 'support.function.builtin.turn');
  });

  it('scopes type names', () => {
    const tokens = tokenize('let f = turn(a: Num, b: List<Str>, c: Map, d: Pid, e: Identity, g: Vec) -> Bool { let z: Any = Point { x: 1 }; };\nlet w: Void = null;');
    for (const t of ['Num', 'Str', 'Bool', 'Any', 'Void']) assert.equal(scopeOf(tokens, t), 'support.type.primitive.turn', t);
    for (const t of ['List', 'Map', 'Pid', 'Identity', 'Vec']) assert.equal(scopeOf(tokens, t), 'support.type.builtin.turn', t);
    assert.equal(scopeOf(tokens, 'Point'), 'entity.name.type.turn');
  });

  it('scopes function names before `(`', () => {
    const tokens = tokenize('let greet = turn(name: Str) -> Str { return "hi " + name; };\nlet s = greet("x");\nlet t = agent.describe (s);');
    assert.equal(scopeOf(tokens, 'greet'), 'entity.name.function.turn');
    assert.equal(scopeOf(tokens, 'greet', 1), 'entity.name.function.turn');
    assert.equal(scopeOf(tokens, 'describe'), 'entity.name.function.member.turn');
    assert.equal(scopeOf(tokens, 'name'), 'variable.other.turn');
  });

  it('scopes identity::kind and schema::proto', () => {
    const tokens = tokenize('let gh = grant identity::oauth("github");\nlet api = use schema::openapi("spec.json");');
    assert.equal(scopeOf(tokens, 'grant'), 'keyword.other.agent.turn');
    assert.equal(scopeOf(tokens, 'identity'), 'entity.name.namespace.identity.turn');
    assert.equal(scopeOf(tokens, '::'), 'punctuation.separator.namespace.turn');
    assert.equal(scopeOf(tokens, 'oauth'), 'support.function.identity.turn');
    assert.equal(scopeOf(tokens, 'schema'), 'entity.name.namespace.schema.turn');
    assert.equal(scopeOf(tokens, 'openapi'), 'support.function.schema.turn');
    assert.ok(allScopesOf(tokens, 'github').includes('string.quoted.double.turn'));
  });

  it('does not take keywords inside identifiers', () => {
    const tokens = tokenize('let turned = letter + android + nullable;');
    assert.equal(scopeOf(tokens, 'turned'), 'variable.other.declaration.turn');
    assert.equal(scopeOf(tokens, 'letter'), 'variable.other.turn');
    assert.equal(scopeOf(tokens, 'android'), 'variable.other.turn');
    assert.equal(scopeOf(tokens, 'nullable'), 'variable.other.turn');
  });
});
