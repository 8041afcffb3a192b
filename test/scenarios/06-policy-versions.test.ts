// Scenario 6 (docs/knowledge.md): after a policy is updated, new tasks use the new version while a
// running one keeps its own; a graph definition that says "at_wait_point" migrates a running run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultOf, runKb, tempDir } from '../knowledge/harness.js';

const PROGRAM = `
let kb = use "std/knowledge";
let graph = use "std/graph";

let policy = kb.program("review_policy", "accept a finding with at least min_sources sources", {"min_sources": 1});
let decide = turn(ctx: Map) -> Any {
    let p = ctx["policies"]["review"];
    return {"policy_version": p["version"], "accepted": ctx["results"]["collect"] >= p["fields"]["min_sources"], "by": "decide@" + ctx["version"]};
};
let v1 = {"name": "review", "version": "1", "migrate": "new_runs", "policies": {"review": policy["id"]}, "nodes": {
    "collect": {"after": [], "run": turn(ctx: Map) -> Any { let m = receive; return m["sources"]; }},
    "decide": {"after": ["collect"], "run": decide}
}};

let a = graph.start(v1, "task A");                           // pins review_policy v1, then waits
let updated = kb.program("review_policy", "accept a finding with at least min_sources sources", {"min_sources": 2});
call("echo", "policy now v" + updated["version"]);
let b = graph.start(v1, "task B");                           // a new task: pins v2
graph.send(b, "collect", {"sources": 1});
let rb = graph.wait(b);

// a newer definition that applies to new runs only does not touch the running one
let v2_new_runs = call("map_set", v1, "version", "2");
let refused = graph.update(a, v2_new_runs);
graph.send(a, "collect", {"sources": 1});
let ra = graph.wait(a);

// one that migrates at a wait point: the run adopts it between node completions
let c = graph.start(v1, "task C");
let v3 = {"name": "review", "version": "3", "migrate": "at_wait_point", "policies": {"review": policy["id"]}, "nodes": {
    "collect": {"after": [], "run": turn(ctx: Map) -> Any { return 0; }},
    "decide": {"after": ["collect"], "run": decide},
    "notify": {"after": ["decide"], "run": turn(ctx: Map) -> Any { return "notified: " + ctx["results"]["decide"]["accepted"]; }}
}};
let migrated = graph.update(c, v3);
graph.send(c, "collect", {"sources": 3});
let rc = graph.wait(c);
return {"a": ra, "b": rb, "c": rc, "refused": refused, "migrated": migrated};
`;

test('scenario 6: new tasks use the updated policy; a running task keeps its version unless its graph migrates at a wait point', async () => {
  const r = resultOf(await runKb(PROGRAM, { dir: tempDir(), runId: 'run-1' }));
  // task A started before the update: policy v1 (1 source is enough), definition 1
  assert.deepEqual(r.a.results.decide, { policy_version: 1, accepted: true, by: 'decide@1' });
  assert.equal(r.a.version, '1');
  assert.deepEqual(r.a.migrations, []);
  // task B started after: policy v2 (2 sources needed)
  assert.deepEqual(r.b.results.decide, { policy_version: 2, accepted: false, by: 'decide@1' });
  assert.deepEqual(r.refused, { type: 'GraphUpdated', migrated: false, from: '1', to: '2', reason: 'the new definition applies to new runs only' });
  // task C migrated at its wait point: collect kept its result, the rest follows definition 3
  assert.deepEqual(r.migrated, { type: 'GraphUpdated', migrated: true, from: '1', to: '3' });
  assert.equal(r.c.started_version, '1');
  assert.equal(r.c.version, '3');
  assert.deepEqual(r.c.migrations, [{ from: '1', to: '3', kept: ['collect'] }]);
  assert.deepEqual(r.c.results, { collect: 3, decide: { policy_version: 2, accepted: true, by: 'decide@3' }, notify: 'notified: true' });
  assert.deepEqual(r.c.nodes, { collect: 'done', decide: 'done', notify: 'done' });
});

test('graph definitions are validated and failures skip dependents only', async () => {
  const r = await runKb(`
let graph = use "std/graph";
let errors = [];
try { graph.define({"name": "g", "version": "1", "nodes": {"a": {"after": ["b"], "run": turn(c: Map) -> Any { return 1; }}, "b": {"after": ["a"], "run": turn(c: Map) -> Any { return 1; }}}}); } catch (e) { let errors = call("list_push", errors, e); }
try { graph.define({"name": "g", "version": "1", "nodes": {"a": {"after": ["zz"], "run": turn(c: Map) -> Any { return 1; }}}}); } catch (e) { let errors = call("list_push", errors, e); }
let out = graph.run({"name": "g", "version": "1", "nodes": {
    "a": {"after": [], "run": turn(ctx: Map) -> Any { return 1; }},
    "b": {"after": ["a"], "run": turn(ctx: Map) -> Any { return ctx["results"]["a"] + 1; }},
    "c": {"after": ["a"], "run": turn(ctx: Map) -> Any { throw "boom"; }},
    "d": {"after": ["b", "c"], "run": turn(ctx: Map) -> Any { return 0; }}
}}, null);
return {"errors": errors, "out": out};
`, { dir: tempDir(), runId: 'r' });
  const v = resultOf(r);
  assert.deepEqual(v.errors, ['graph.define: the dependencies of a, b form a cycle', 'graph.define: node a depends on unknown node zz']);
  assert.equal(v.out.status, 'failed');
  assert.deepEqual(v.out.results, { a: 1, b: 2 });
  assert.deepEqual(v.out.errors, { c: 'boom' });
  assert.deepEqual(v.out.nodes, { a: 'done', b: 'done', c: 'failed', d: 'skipped' });
});
