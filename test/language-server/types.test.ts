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
});
