// A snapshot changed in place is never restored (docs/durability.md, *Snapshot format*): snapshots
// carry a SHA-256 (formats 5 and 6), so a byte changed in the store after the snapshot was written
// — here an integer the program holds, changed to another integer, which the format alone cannot
// tell from the real one — is named as damaged (which run, which step), and the resume replays the
// journal from the start instead, ending with the right value. Before, the resume restored the
// changed value and said nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { runIdOf, turnAsync } from './helpers.js';

const PROGRAM = `let n = 1234567;
call("echo", "before");
suspend;
call("echo", "after");
return n + 1;
`;

/** The LEB128 varint of `n` (the snapshot's encoding of an integer is its tag 3, then zigzag(n) as a varint). */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  return [...out, n];
}
const INT = (n: number) => Buffer.from([3, ...varint(2 * n)]);

for (const driver of ['better-sqlite3', 'node-sqlite3-wasm']) {
  test(`a snapshot changed in the store is named and the run resumes from its journal with the right value (${driver})`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-damaged-snapshot-'));
    fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
    const env = { TURN_STORE_DRIVER: driver };
    const first = await turnAsync(['run', 'p.tn', '--store', 'st'], dir, env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'before\n');
    const id = runIdOf(first.stderr);

    // change the held integer in place, in the stored snapshot (the store is closed: its writer has exited)
    const db = new Database(path.join(dir, 'st', 'store.db'));
    let step: number;
    try {
      const row = db.prepare('SELECT seq, bytes FROM snapshots WHERE run_id = ?').get(id) as { seq: number; bytes: Buffer };
      step = row.seq + 1;
      const at = row.bytes.indexOf(INT(1234567));
      assert.ok(at > 0, 'the snapshot holds the integer');
      const changed = Buffer.from(row.bytes);
      INT(7654321).copy(changed, at); // same length: the stream still decodes, to another value
      db.prepare('UPDATE snapshots SET bytes = ? WHERE run_id = ?').run(changed, id);
    } finally {
      db.close();
    }

    const inspected = await turnAsync(['inspect', id, '--store', 'st', '--json'], dir, env);
    assert.equal(inspected.code, 0, inspected.stderr);
    assert.match((JSON.parse(inspected.stdout) as { snapshot: { error?: string } }).snapshot.error ?? '', /checksum does not match/);

    const resumed = await turnAsync(['resume', id, '--store', 'st', '--json'], dir, env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, 'after\n1234568\n', 'the right value, from the journal');
    assert.match(resumed.stderr, new RegExp(`turn: note: the snapshot of run ${id} at step ${step} is damaged \\(corrupt snapshot: its checksum does not match its bytes, which changed after it was written\\); replaying run ${id}'s journal from the start`));
  });
}
