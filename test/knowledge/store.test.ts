// The knowledge store's rules: identity, provenance, citations, staleness (transitive), checks,
// drafts vs committed knowledge across runs, program versions. docs/knowledge.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KnowledgeStore, KNOWLEDGE_FILE } from '../../runtime/knowledge/store.js';
import { lazyKnowledge } from '../../runtime/knowledge/open.js';
import { tempDir } from './harness.js';

function open() {
  const dir = tempDir();
  let t = Date.UTC(2026, 0, 1);
  const store = KnowledgeStore.open(dir, { now: () => (t += 1000) });
  return { dir, store };
}

test('a three-level chain: revising the root marks every claim and report resting on it stale', () => {
  const { store } = open();
  const s = store.session('run-a');
  const m = s.put({ kind: 'material', text: 'Press release: launched 3 March 2024', fields: { source: 'https://example.org/press', date: '2024-03-03' } });
  const m2 = s.put({ kind: 'material', text: 'Unrelated memo', fields: { source: 'memo.txt' } });
  const c1 = s.put({ kind: 'claim', text: 'It launched in March 2024', cites: [m.id], fields: { date: '2024-03' } });
  const c2 = s.put({ kind: 'claim', text: 'It launched in Q1 2024', cites: [c1.id] });
  const other = s.put({ kind: 'claim', text: 'A memo exists', cites: [m2.id] });
  const r = s.put({ kind: 'report', text: 'Launch: Q1 2024', cites: [c2.id], name: 'Launch' });
  assert.deepEqual([m.id, c1.id, c2.id, r.id], ['material/1', 'claim/3', 'claim/4', 'report/6']);
  assert.deepEqual(s.dependents(m.id), [c1.id, c2.id, r.id]);
  assert.deepEqual(s.stale(), []);

  const rev = s.revise(m.id, { fields: { date: '2024-04-02' }, note: 'corrected by the vendor' });
  assert.deepEqual(rev, { id: m.id, version: 2, stale: [c1.id, c2.id, r.id] });
  const stale = s.stale();
  assert.deepEqual(stale.map((o) => o.id), [c1.id, c2.id, r.id]);
  for (const o of stale) assert.deepEqual(o.because, { id: m.id, version: 2, at: '2026-01-01T00:00:07.000Z' });
  assert.equal(s.get(other.id).stale, false, 'what does not rest on the root stays fresh');
  assert.equal(s.get(m.id).stale, false, 'the revised object itself is not stale');

  // the material keeps its history; version 1 is still readable
  assert.equal(s.get(m.id, 1).fields.date, '2024-03-03');
  assert.equal(s.get(m.id).fields.date, '2024-04-02');
  assert.equal(s.get(m.id).fields.source, 'https://example.org/press', 'revising merges fields');

  // re-deriving the middle claim clears it and re-pins its citation, but its dependents stay stale
  const again = s.revise(c1.id, { text: 'It launched in April 2024', fields: { date: '2024-04' } });
  assert.deepEqual(again.stale, [c2.id, r.id]);
  assert.deepEqual(s.stale().map((o) => o.id), [c2.id, r.id]);
  const info = s.inspect(c1.id) as any;
  assert.deepEqual(info.cites.map((c: any) => [c.id, c.cited_version, c.current_version]), [[m.id, 2, 2]]);
  // confirming after review clears staleness without a new version
  s.confirm(c2.id, 'Q1 → Q2 reviewed');
  assert.equal(s.get(c2.id).stale, false);
  assert.equal(s.get(c2.id).version, 1);
  assert.deepEqual(s.stale().map((o) => o.id), [r.id]);
  store.close();
});

test('inspect returns fields, provenance, citations, dependents, verdicts and history', () => {
  const { store } = open();
  const s = store.session('run-a');
  const m = s.put({ kind: 'material', text: 'Minutes of 2024-05-02', fields: { source: 'minutes/2024-05-02.md' } });
  const c = s.put({ kind: 'claim', text: 'The board approved the budget', cites: [m.id], fields: { date: '2024-05-02' } });
  const r = s.put({ kind: 'report', name: 'Budget', text: 'Approved', cites: [c.id] });
  s.recordCheck(c.id, 'date_matches_source', '1', 'accepted', { claim: '2024-05-02', source: '2024-05-02' });
  const mi = s.inspect(m.id) as any;
  assert.equal(mi.provenance.source, 'minutes/2024-05-02.md');
  assert.deepEqual(mi.dependents, [c.id, r.id]);
  assert.deepEqual(mi.cited_by, [c.id]);
  const ci = s.inspect(c.id) as any;
  assert.equal(ci.kind, 'claim');
  assert.deepEqual(ci.fields, { date: '2024-05-02' });
  assert.deepEqual(ci.provenance.rests_on, [m.id]);
  assert.equal(ci.provenance.created_by_run, 'run-a');
  assert.equal(ci.provenance.committed_at, null);
  assert.deepEqual(ci.accepted_by, ['date_matches_source@1']);
  assert.deepEqual(ci.checks[0].evidence, { claim: '2024-05-02', source: '2024-05-02' });
  assert.equal(ci.checks[0].object_version, 1);
  assert.deepEqual(ci.history.map((h: any) => [h.version, h.note]), [[1, 'created']]);
  // a verdict belongs to the version it was made on
  s.revise(c.id, { text: 'The board approved the budget on 2 May' });
  const after = s.inspect(c.id) as any;
  assert.deepEqual(after.accepted_by, [], 'the new version has not been checked');
  assert.equal(after.checks.length, 1);
  assert.equal(s.lookupCheck(c.id, 'date_matches_source', '1'), null);
  store.close();
});

test('citations are validated: kinds, existence, rejected objects, cycles, claims must cite', () => {
  const { store } = open();
  const s = store.session('run-a');
  assert.throws(() => s.put({ kind: 'material', text: 'x' }), /needs its source/);
  assert.throws(() => s.put({ kind: 'claim', text: 'x' }), /must cite/);
  assert.throws(() => s.put({ kind: 'claim', text: 'x', cites: ['material/99'] }), /no object material\/99/);
  const m = s.put({ kind: 'material', text: 'x', fields: { source: 's' } });
  const c = s.put({ kind: 'claim', text: 'c', cites: [m.id] });
  const r = s.put({ kind: 'report', text: 'r', cites: [c.id] });
  assert.throws(() => s.put({ kind: 'claim', text: 'x', cites: [r.id] }), /a claim cannot cite a report/);
  const c2 = s.put({ kind: 'claim', text: 'c2', cites: [c.id] });
  assert.throws(() => s.revise(c.id, { cites: [c2.id] }), /cycle/);
  s.recordCheck(c2.id, 'rule', '1', 'rejected', 'no');
  assert.equal(s.get(c2.id).status, 'rejected');
  assert.throws(() => s.put({ kind: 'report', text: 'r', cites: [c2.id] }), /rejected by a check/);
  s.revise(c2.id, { text: 'c2, fixed' });
  assert.equal(s.get(c2.id).status, 'draft', 'a revised rejected object is a draft again, to be checked anew');
  store.close();
});

test('drafts stay the run\'s own until committed; committed knowledge is shared with later runs', () => {
  const { dir, store } = open();
  const a = store.session('run-a');
  const m = a.put({ kind: 'material', text: 'x', fields: { source: 's' } });
  const c = a.put({ kind: 'claim', text: 'c', cites: [m.id] });
  const bad = a.put({ kind: 'claim', text: 'bad', cites: [m.id] });
  a.recordCheck(bad.id, 'rule', '1', 'rejected', null);
  const b = store.session('run-b');
  assert.deepEqual(b.find({}), [], 'another run does not see drafts');
  assert.throws(() => b.get(m.id), /another run's uncommitted draft/);
  assert.throws(() => b.put({ kind: 'claim', text: 'x', cites: [m.id] }), /no object/);
  // committing a claim without the material it rests on is refused for that claim
  assert.deepEqual(a.commit([c.id]), { committed: [], skipped: [{ id: c.id, reason: `it cites ${m.id}, which is not committed` }] });
  assert.deepEqual(a.commit(), { committed: [m.id, c.id], skipped: [{ id: bad.id, reason: 'rejected by a check' }] });
  assert.deepEqual(b.find({}).map((o) => o.id), [m.id, c.id]);
  assert.equal(b.get(c.id).committed, true);
  assert.equal(b.get(c.id).status, 'committed');
  // a later process opening the same folder sees the same shared knowledge
  store.close();
  const lazy = lazyKnowledge({ dir, runId: 'run-c' });
  assert.equal(lazy.opened(), false, 'nothing is opened before the first use');
  assert.deepEqual(lazy.session().find({ kind: 'claim' }).map((o) => o.id), [c.id]);
  assert.deepEqual(lazy.session().find({ kind: 'claim', mine: true }), []);
  lazy.close();
  assert.ok(fs.existsSync(path.join(dir, KNOWLEDGE_FILE)));
});

test('find by kind, name, text, field, citation, status and staleness', () => {
  const { store } = open();
  const s = store.session('run-a');
  const m = s.put({ kind: 'material', text: 'Launch notes', fields: { source: 'a', topic: 'launch' } });
  const m2 = s.put({ kind: 'material', text: 'Pricing notes', fields: { source: 'b', topic: 'pricing' } });
  const c = s.put({ kind: 'claim', text: 'The LAUNCH was in March', cites: [m.id] });
  s.put({ kind: 'claim', text: 'Prices rose', cites: [m2.id] });
  assert.deepEqual(s.find({ kind: 'claim', text: 'launch' }).map((o) => o.id), [c.id]);
  assert.deepEqual(s.find({ fields: { topic: 'pricing' } }).map((o) => o.id), [m2.id]);
  assert.deepEqual(s.find({ cites: m.id }).map((o) => o.id), [c.id]);
  assert.deepEqual(s.find({ kind: 'material', limit: 1 }).map((o) => o.id), [m.id]);
  s.revise(m.id, { text: 'Launch notes v2' });
  assert.deepEqual(s.find({ stale: true }).map((o) => o.id), [c.id]);
  assert.deepEqual(s.find({ status: 'draft', kind: 'material' }).length, 2);
  store.close();
});

test('programs and tools are published by name: same content reuses the version, new content revises', () => {
  const { store } = open();
  const s = store.session('run-a');
  const p1 = s.publish('program', 'date_check', 'dates within 31 days', { version: '1' });
  assert.equal(p1.reused, false);
  assert.equal(p1.version, 1);
  const dependent = s.put({ kind: 'program', name: 'review_policy', text: 'uses date_check', cites: [p1.id] });
  assert.equal(s.publish('program', 'date_check', 'dates within 31 days', { version: '1' }).reused, true);
  const p2 = s.publish('program', 'date_check', 'dates within 7 days', { version: '2' });
  assert.deepEqual([p2.id, p2.version, p2.reused], [p1.id, 2, false]);
  assert.equal(s.get(p1.id, 1).fields.version, '1');
  assert.deepEqual(s.stale().map((o) => o.id), [dependent.id], 'programs built on it are stale');
  assert.throws(() => s.publish('program', '', '', {}), /needs a name/);
  store.close();
});

test('the knowledge file refuses another application\'s SQLite database', () => {
  const dir = tempDir();
  const store = KnowledgeStore.open(dir);
  store.close();
  // reopening is fine (schema already there)
  KnowledgeStore.open(dir).close();
  const other = tempDir();
  fs.writeFileSync(path.join(other, KNOWLEDGE_FILE), 'this is not sqlite at all, just some text that is long enough to be a header....');
  assert.throws(() => KnowledgeStore.open(other), /knowledge store/);
});
