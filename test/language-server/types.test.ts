// Issue 23 in the editor: hover and completion show a struct's and a field's `///` description and
// checks; completion after `@` offers the checks; members of a union are completed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MarkupContent } from 'vscode-languageserver';
import { onCompletion } from '../../language-server/completion.js';
import { onHover } from '../../language-server/hover.js';
import { at, openText } from './helpers.js';

const doc = (uri: string) => ({ textDocument: { uri } });

const TYPES = `/// A contact found in the text.
struct Contact {
  /// Full name as written in the text.
  name: Str @length(1, 200),
  age: Num? @range(0, 150),
};
struct Approve { kind: "approve", amount: Num }
struct Reject { kind: "reject", reason: Str }
`;

describe('descriptions and checks', () => {
  it('hover on a field shows its description and checks; on a struct, its description', async () => {
    const d = await openText(`${TYPES}let c = Contact { name: "a" };\nlet n = c./*|*/name;\nlet k: /*|struct*/Contact? = null;`);
    const h = onHover(d, { ...doc(d.uri), position: at(d) });
    const text = (h?.contents as MarkupContent).value;
    assert.match(text, /\(field\) Contact\.name: Str/);
    assert.match(text, /Full name as written in the text\./);
    assert.match(text, /- `@length\(1, 200\)`: a Str of LO to HI characters/);
    const s = onHover(d, { ...doc(d.uri), position: at(d, 'struct') });
    assert.match((s?.contents as MarkupContent).value, /A contact found in the text\./);
  });

  it("completion of fields carries their docs; after `@`, the checks; a union offers every member's fields", async () => {
    const d = await openText(`${TYPES}let c = Contact { name: "a" };\nlet n = c./*|*/`);
    const items = onCompletion(d, { ...doc(d.uri), position: at(d) }).items;
    const name = items.find((i) => i.label === 'name');
    assert.match((name?.documentation as MarkupContent).value, /Full name as written in the text\.[\s\S]*@length\(1, 200\)/);
    const c = await openText('struct S { n: Num @/*|*/ }');
    const checks = onCompletion(c, { ...doc(c.uri), position: at(c) }).items.map((i) => i.label);
    assert.deepEqual(checks.slice(0, 3), ['minimum', 'maximum', 'exclusive_minimum']);
    assert.ok(checks.includes('check') && checks.includes('range') && checks.includes('pattern'));
    const u = await openText(`${TYPES}let d = infer Approve | Reject { "x"; };\nlet a = d./*|*/`);
    const fields = onCompletion(u, { ...doc(u.uri), position: at(u) }).items.map((i) => i.label).sort();
    assert.deepEqual(fields, ['amount', 'kind', 'reason']);
  });

  it('the infer hover shows the schema with predicates by name', async () => {
    const d = await openText('struct P { n: Num @check("even", turn(v) { return v == 2; }) }\nlet p = /*|*/infer P { "p"; };');
    const h = onHover(d, { ...doc(d.uri), position: at(d) });
    const text = (h?.contents as MarkupContent).value;
    assert.match(text, /"x-turn-checks": \[\s*"@check\(\\"even\\"\)"\s*\]/);
  });

  it('infer options: completion offers them after `with {` and after a comma, with what each takes; hover explains one', async () => {
    const d = await openText('let v = infer Str with { /*|*/ } { "x"; };');
    const items = onCompletion(d, { ...doc(d.uri), position: at(d) }).items;
    assert.deepEqual(items.map((i) => i.label).slice(0, 4), ['max_tokens', 'temperature', 'seed', 'consistency']);
    assert.equal(items.find((i) => i.label === 'consistency')?.detail, 'infer option: a whole number from 1 to 16');
    const next = await openText('let v = infer Str with {\n    seed: 7,\n    /*|*/\n} { "x"; };');
    assert.ok(onCompletion(next, { ...doc(next.uri), position: at(next) }).items.some((i) => i.label === 'timeout_ms'));
    // a value position is not a name position
    const value = await openText('let k = 1;\nlet v = infer Str with { seed: /*|*/ } { "x"; };');
    assert.ok(!onCompletion(value, { ...doc(value.uri), position: at(value) }).items.some((i) => i.label === 'max_tokens'));
    const h = await openText('let v = infer Str with { /*|*/consistency: 3 } { "x"; };');
    const text = (onHover(h, { ...doc(h.uri), position: at(h) })?.contents as MarkupContent).value;
    assert.match(text, /\(infer option\) `consistency`: a whole number from 1 to 16/);
    assert.match(text, /self-consistency/);
    // on the type, still the schema
    const t = await openText('let v = infer /*|*/Str with { seed: 1 } { "x"; };');
    assert.match((onHover(t, { ...doc(t.uri), position: at(t) })?.contents as MarkupContent).value, /JSON Schema/);
  });
});
