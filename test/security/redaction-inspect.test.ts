// `turn inspect` shows what a durable run stored: its result and its journal's entries. A secret
// the program rebuilt from pieces (each too short to be recognized) was printed redacted by
// `turn run`, but stored as the run's result and shown in clear by `turn runs`/`turn inspect`
// (and sent so to a Restate client); and inspect showed the journal as stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnAsync } from '../cli/run-cli.js';

const SECRET = 'ghp_Zq81vN0pLx5Rt7Wm2Yc4';
const OPENAI = 'sk-proj-Mn4Bv7Cx1Zl9Kj3Hg5';
const rebuilt = (s: string): string => (s.match(/.{1,4}/g) ?? []).map((p) => JSON.stringify(p)).join(' + ');

async function durableRun(source: string, env: Record<string, string>): Promise<{ dir: string; id: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-redact-inspect-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), source);
  const r = await turnAsync(['run', 'p.tn', '--store', 'st', '--json'], { cwd: dir, env });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes(SECRET), r.stdout);
  const runs = await turnAsync(['runs', '--store', 'st'], { cwd: dir });
  return { dir, id: runs.stdout.split(/\s+/)[0] };
}

test('a finished run\'s result is stored redacted: turn inspect shows it so even where the secret is unknown', async () => {
  const { dir, id } = await durableRun(`return {"key": ${rebuilt(SECRET)}};\n`, { TURN_SECRET_GH: SECRET });
  for (const args of [[], ['--json']]) {
    const r = await turnAsync(['inspect', id, '--store', 'st', ...args], { cwd: dir, env: { TURN_SECRET_GH: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /«redacted:GH»/);
    assert.ok(!r.stdout.includes(SECRET), r.stdout);
  }
});

test('turn inspect redacts the secrets it knows (TURN_SECRET_*, provider keys) from the journal it shows', async () => {
  const { dir, id } = await durableRun(`call("echo", ${rebuilt(SECRET)});\ncall("echo", ${rebuilt(OPENAI)});\nsuspend;\nreturn 1;\n`, { TURN_SECRET_GH: SECRET, OPENAI_API_KEY: OPENAI });
  for (const args of [[], ['--json']]) {
    const r = await turnAsync(['inspect', id, '--store', 'st', ...args], { cwd: dir, env: { TURN_SECRET_GH: SECRET, OPENAI_API_KEY: OPENAI } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /«redacted:GH»/);
    assert.match(r.stdout, /«redacted:OPENAI_API_KEY»/);
    assert.ok(!r.stdout.includes(SECRET) && !r.stdout.includes(OPENAI), r.stdout);
  }
});
