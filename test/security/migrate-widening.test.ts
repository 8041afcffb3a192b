// `turn resume --migrate` cannot widen an agent's capabilities (issue: "limits can be raised from
// inside"). An agent's grants are journaled when it starts (`g<n>`, runtime/durable/index.ts); a
// migration replays the new code from the start, and an agent it starts with a capability the
// journal did not record is a divergence: the run stops before the agent can use it. A narrowing
// migrates. Before, the grants were never recorded, so a migration to code that widened them
// replayed with no divergence and the agent reached the network.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fakeServer } from '../providers/fake-server.js';
import { runIdOf, turnAsync } from '../durability/helpers.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function workdir(program: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-migrate-widening-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'p.tn'), program);
  return dir;
}

/**
 * An agent granted `caps` waits for a message; main suspends, then (after the resume) tells it to
 * fetch `url`. What the agent got back (or the refusal it caught) is the run's result.
 */
const program = (caps: string, url: string): string => `
let lab = call("agent", {"name": "lab", "policy": null, "capabilities": ${caps}}, turn() {
    let net = use "std/net";
    let go = receive;
    try { return net.get(null, "${url}"); } catch (e) { return "refused: " + e["message"]; }
});
suspend;
send lab, "go";
return call("wait", lab);
`;

test('a migration to code that widens an agent\'s capabilities is a divergence; the agent never reaches the network', async () => {
  const server = await fakeServer(() => ({ status: 200, body: { secret: 'reached' } }));
  try {
    const url = `${server.url}/data`;
    const dir = workdir(program('["clock"]', url));
    const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(first.code, 0, first.stderr);
    const id = runIdOf(first.stderr);

    // the new code grants the agent the network too
    fs.writeFileSync(path.join(dir, 'p.tn'), program('["clock", "network"]', url));
    const moved = await turnAsync(['resume', id, '--store', 'st', '--migrate', '--json'], dir);
    assert.equal(moved.code, 1, moved.stderr);
    assert.match(moved.stderr, /replay diverged at step \d+ \(g1\): agent "lab" was granted the capabilities clock when the run started, the program now grants agent "lab" clock, network; a resumed or migrated run cannot widen an agent's capabilities \(network\)/);
    assert.equal(server.received.length, 0, 'the widened agent must not reach the network');

    // (the diverged run has failed.) Narrowing is no divergence: a run like it migrates to code that grants the agent less
    fs.writeFileSync(path.join(dir, 'p.tn'), program('["clock"]', url));
    const second = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(second.code, 0, second.stderr);
    fs.writeFileSync(path.join(dir, 'p.tn'), program('[]', url));
    const narrowed = await turnAsync(['resume', runIdOf(second.stderr), '--store', 'st', '--migrate', '--json'], dir);
    assert.equal(narrowed.code, 0, narrowed.stderr);
    assert.match(JSON.parse(narrowed.stdout) as string, /^refused: http_request needs the "network" capability, which agent "lab" was not granted \(its capabilities: none\)/);
    assert.equal(server.received.length, 0);
  } finally {
    await server.close();
  }
});

test('the journal records each agent\'s grant; the same code resumes as before and its agent uses what it was granted', async () => {
  const server = await fakeServer(() => ({ status: 200, body: { secret: 'reached' } }));
  try {
    const dir = workdir(program('["network"]', `${server.url}/data`));
    const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(first.code, 0, first.stderr);
    const id = runIdOf(first.stderr);
    const shown = await turnAsync(['inspect', id, '--store', 'st'], dir);
    assert.match(shown.stdout, /g1\s+grant\s+lab\s+ok\s+\{"agent":"lab","capabilities":\["network"\]\}/);
    const done = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /reached/);
    assert.equal(server.received.length, 1);
  } finally {
    await server.close();
  }
});
