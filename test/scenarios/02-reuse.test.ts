// Scenario 2 (docs/knowledge.md): a new task reuses the objects and program versions an earlier run
// committed — its checks' verdicts are reused, not re-run — and after a revision of the evidence,
// the conclusions resting on it are found; another run's drafts stay invisible until committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultOf, runKb, tempDir } from '../knowledge/harness.js';
import { CLAIMS_PROGRAM, CLAIMS_SCRIPT } from './programs.js';

const CHECK = `
let CHECK = "date_matches_source";
let CHECK_VERSION = "1";
let date_matches_source = turn(o: Map) -> Any {
    call("echo", "running " + CHECK + " on " + o["id"] + " v" + o["version"]);
    let dates = map(o["cites"], turn(c: Map) -> Any { return c["fields"]["date"]; });
    return {"ok": call("list_contains", dates, o["fields"]["date"]), "evidence": {"claim_date": o["fields"]["date"], "source_dates": dates}};
};
`;

const NEW_TASK = `
let kb = use "std/knowledge";
${CHECK}
// the program version an earlier run committed is found and reused (same text and version: no new version)
let program = kb.program(CHECK, "a claim's date must appear in one of its cited materials", {"version": CHECK_VERSION});
call("echo", "program " + program["id"] + " v" + program["version"] + " reused: " + program["reused"]);
let claims = kb.find({"kind": "claim", "text": "Rocket", "status": "committed"});
let europe = [];
let i = 0;
while i < call("len", claims) {
    let v = kb.check(claims[i]["id"], CHECK, CHECK_VERSION, date_matches_source);
    call("echo", claims[i]["id"] + " " + v["outcome"] + " (reused: " + v["reused"] + ")");
    if call("str_contains", claims[i]["text"], "Europe") { let europe = call("list_push", europe, claims[i]["id"]); }
    let i = i + 1;
}
let report = kb.report("Rocket in Europe", "Shipped in Europe in March 2024.", europe, {});
call("echo", "draft " + report);
// new evidence: the review corrects its date
let blog = kb.find({"kind": "material", "text": "review of the Rocket"})[0];
let revision = kb.revise(blog["id"], {"text": "Our review of the Rocket, which shipped on 12 March 2024 in Europe.", "fields": {"date": "2024-03-12"}});
let recheck = kb.check("claim/5", CHECK, CHECK_VERSION, date_matches_source);
return {"marked": revision["stale"], "stale": map(kb.stale(), turn(o: Map) -> Str { return o["id"]; }), "recheck": recheck,
        "report": kb.inspect(report)};
`;

const LATER = `
let kb = use "std/knowledge";
return {"reports": map(kb.find({"kind": "report"}), turn(o: Map) -> Str { return o["id"]; }),
        "stale": map(kb.stale(), turn(o: Map) -> Any { return [o["id"], o["because"]["id"], o["because"]["version"]]; }),
        "claim": kb.inspect("claim/5")};
`;

test('scenario 2: a new task reuses committed objects and program versions; a revision finds the dependent conclusions', async () => {
  const dir = tempDir();
  resultOf(await runKb(CLAIMS_PROGRAM, { dir, runId: 'run-1', script: CLAIMS_SCRIPT }));

  const second = await runKb(NEW_TASK, { dir, runId: 'run-2' });
  const r = resultOf(second);
  assert.deepEqual(second.lines, [
    'program program/3 v1 reused: true',
    'claim/4 accepted (reused: true)',
    'claim/5 accepted (reused: true)',
    'draft report/8',
    'running date_matches_source on claim/5 v2',
  ]);
  // every claim and report resting on the revised material, across runs, is marked stale
  assert.deepEqual(r.marked, ['claim/5', 'report/7', 'report/8']);
  assert.deepEqual(r.stale, ['claim/5', 'report/7', 'report/8']);
  // the earlier verdict was made on other evidence: the check runs again, and now rejects
  assert.equal(r.recheck.reused, false);
  assert.equal(r.recheck.outcome, 'rejected');
  assert.deepEqual(r.recheck.evidence, { claim_date: '2024-03-05', source_dates: ['2024-03-12'] });
  assert.equal(r.report.stale_because.id, 'material/2');
  assert.equal(r.report.committed, false);

  // a third run sees the shared knowledge and its staleness, but not run 2's uncommitted report
  const third = resultOf(await runKb(LATER, { dir, runId: 'run-3' }));
  assert.deepEqual(third.reports, ['report/7']);
  assert.deepEqual(third.stale, [['claim/5', 'material/2', 2], ['report/7', 'material/2', 2]]);
  assert.equal(third.claim.status, 'rejected');
  assert.deepEqual(third.claim.rejected_by, ['date_matches_source@1']);
  assert.deepEqual(
    third.claim.checks.map((c: any) => [c.object_version, c.outcome, c.run, c.basis]),
    [
      [1, 'rejected', 'run-1', [['material/2', 1]]],
      [2, 'accepted', 'run-1', [['material/2', 1]]],
      [2, 'rejected', 'run-2', [['material/2', 2]]],
    ],
  );
});
