// The checker knows the type of a failed child's slot in `gather`: the built-in struct ChildError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';

async function messages(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d));
}

test('ChildError is a known struct with pid, type, message and error', async () => {
  assert.deepEqual(await messages(`
let r = gather spawn turn() { throw "x"; };
if call("type_of", r) == "ChildError" {
    let e: ChildError = r;
    let who: Pid = e.pid;
    let why: Str = e.type + ": " + e.message;
    call("echo", e.error);
}
`), []);
  assert.deepEqual(await messages(`
let e: ChildError = gather spawn turn() { throw "x"; };
call("echo", e.reason);
let n: Num = e.message;
`), [
    'a.tn:3:16: ChildError has no field `reason`',
    'a.tn:4:14: type mismatch: `n` is declared Num, got Str',
  ]);
});

test('gather of one pid is its result, not a list; of a list, a list', async () => {
  assert.deepEqual(await messages(`
let one = gather spawn turn() { return {"k": 1}; };
call("echo", one["k"]);
let many = gather spawn_each([1], turn(x: Num) -> Num { return x; });
call("echo", many[0]);
`), []);
});

test('a program may declare its own ChildError', async () => {
  assert.deepEqual(await messages('struct ChildError { code: Num };\nlet e = ChildError { code: 1 };\ncall("echo", e.code);\n'), []);
});
