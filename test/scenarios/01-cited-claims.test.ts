// Scenario 1 (docs/knowledge.md): materials become cited claims, a check flags a date conflict,
// the claim is revised, and a report cites the surviving claims. The model is scripted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultOf, runKb, tempDir } from '../knowledge/harness.js';

import { CLAIMS_PROGRAM, CLAIMS_SCRIPT } from './programs.js';

test('scenario 1: materials become cited claims; a date conflict is flagged, the claim revised; the report cites the survivors', async () => {
  const dir = tempDir();
  const run = await runKb(CLAIMS_PROGRAM, { dir, runId: 'run-1', script: CLAIMS_SCRIPT });
  const r = resultOf(run);
  assert.deepEqual(run.lines, [
    'claim/4 accepted by date_matches_source@1',
    'claim/5 rejected by date_matches_source@1',
    'claim/5 revised, accepted',
    'claim/6 rejected by date_matches_source@1',
  ]);
  assert.deepEqual(r.surviving, ['claim/4', 'claim/5']);
  assert.deepEqual(r.rejected, ['claim/6']);
  // the report cites the surviving claims, at the versions that were accepted
  assert.deepEqual(r.report.cites.map((c: any) => [c.id, c.cited_version]), [['claim/4', 1], ['claim/5', 2]]);
  assert.equal(r.report.text, 'Acme announced the Rocket for 3 March 2024. The Rocket shipped in Europe on 5 March 2024.');
  // the revised claim keeps both versions and both verdicts, each with its check version and evidence
  const c = r.revised;
  assert.deepEqual(c.history.map((h: any) => [h.version, h.fields.date, h.note]), [[1, '2024-04-03', 'created'], [2, '2024-03-05', 'corrected after date_matches_source']]);
  assert.deepEqual(
    c.checks.map((k: any) => [k.object_version, `${k.check}@${k.version}`, k.outcome, k.evidence.claim_date]),
    [[1, 'date_matches_source@1', 'rejected', '2024-04-03'], [2, 'date_matches_source@1', 'accepted', '2024-03-05']],
  );
  assert.deepEqual(c.checks[0].evidence.source_dates, ['2024-03-05']);
  assert.deepEqual(c.accepted_by, ['date_matches_source@1']);
  assert.deepEqual(c.provenance.rests_on, ['material/2']);
  assert.equal(c.fields.proposed_by, 'model', 'who proposed it is kept apart from who accepted it');
  // commit shares the accepted work; the rejected claim stays this run's, and is said so
  assert.deepEqual(r.commit.committed, ['material/1', 'material/2', 'program/3', 'claim/4', 'claim/5', 'report/7']);
  assert.deepEqual(r.commit.skipped, [{ id: 'claim/6', reason: 'rejected by a check' }]);
});
