// Scenario 3 (docs/knowledge.md): an agent starts an investigation that waits for an external
// result (a lab job it polls over HTTP, which the test's server keeps pending), and meanwhile answers new messages and
// produces an interim report; when the result arrives it writes the final report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resultOf, runKb, tempDir } from '../knowledge/harness.js';

const PROGRAM = (url: string) => `
let kb = use "std/knowledge";
struct Answer { text: Str };

let agent = turn(url: Str) -> Any {
    let notes = kb.material("notes/intake.md", "Sample 17 was sent to the lab on 2 May.", {"date": "2024-05-02"});
    let sent = kb.claim("Sample 17 is at the lab.", [notes], null);
    let me = call("self");
    // the investigation: its own computation, waiting for the external result
    spawn turn() {
        // the lab is an external job: poll its status, sleeping between polls (a sleeping process
        // holds nothing up; see docs/knowledge.md on why not one long-held request)
        let reply = call("http_request", null, "GET", url, null);
        while reply["status"] == 202 {
            call("sleep", 20);
            let reply = call("http_request", null, "GET", url, null);
        }
        send me, {"type": "LabResult", "body": reply["body"]};
        return null;
    };
    let final = null;
    while final == null {
        let msg = receive;
        if msg["type"] == "Question" {
            let answer = invoke turn() -> Any {
                context.append("Known: " + call("str_join", map(kb.find({"kind": "claim"}), turn(o: Map) -> Str { return o["text"]; }), " "));
                return infer Answer { "Answer the question: " + msg["text"]; };
            };
            send msg["from"], {"type": "Answer", "text": answer.text};
        }
        if msg["type"] == "Interim" {
            let claims = map(kb.find({"kind": "claim"}), turn(o: Map) -> Str { return o["id"]; });
            let interim = kb.report("Sample 17 (interim)", "Waiting for the lab. So far: sample 17 is at the lab.", claims, {"interim": true});
            call("echo", "interim report " + interim);
            send msg["from"], {"type": "InterimDone", "id": interim};
        }
        if msg["type"] == "LabResult" {
            let lab = kb.material(url, msg["body"], {"date": "2024-05-09"});
            let found = kb.claim("Sample 17 is negative.", [lab], null);
            let final = kb.report("Sample 17", "The lab found sample 17 negative.", [sent, found], {"interim": false});
            call("echo", "final report " + final);
        }
    }
    return final;
};

turn {
    let a = spawn turn() { return agent("${url}"); };
    send a, {"type": "Question", "text": "Where is sample 17?", "from": call("self")};
    call("echo", "answer: " + receive["text"]);
    send a, {"type": "Interim", "from": call("self")};
    let interim = receive["id"];
    let final = call("wait", a);
    return {"interim": kb.inspect(interim), "final": kb.inspect(final)};
}
`;

test('scenario 3: an agent waiting for an external result answers messages and produces an interim report', async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  let released = false;
  let polls = 0;
  void held.then(() => (released = true));
  const server = http.createServer((req, res) => {
    polls++;
    if (!released) res.writeHead(202).end('pending');
    else res.end('Lab report: sample 17 negative (9 May).');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const events: string[] = [];
  try {
    const run = await runKb(PROGRAM(`http://127.0.0.1:${port}/sample/17`), {
      dir: tempDir(),
      runId: 'run-1',
      flags: { allowNet: [`127.0.0.1:${port}`] },
      script: { replies: [{ type: 'Answer', match: 'Where is sample 17', value: { text: 'At the lab since 2 May; the result is pending.' } }] },
      onLine: (line) => {
        events.push(`${line} (lab result released: ${released})`);
        if (line.startsWith('interim report')) release(); // the external result is ready only now
      },
    });
    const r = resultOf(run);
    assert.deepEqual(events, [
      'answer: At the lab since 2 May; the result is pending. (lab result released: false)',
      'interim report report/3 (lab result released: false)',
      'final report report/6 (lab result released: true)',
    ]);
    assert.deepEqual(r.interim.fields, { interim: true });
    assert.deepEqual(r.interim.provenance.rests_on, ['claim/2']);
    assert.deepEqual(r.final.provenance.rests_on, ['claim/2', 'claim/5']);
    assert.equal(r.final.cites[1].text, 'Sample 17 is negative.');
    // Effects resume as they complete, so the first poll may still be in flight when the result is
    // released; the order of the lines above is what shows the agent worked while the lab was pending.
    assert.ok(polls >= 1, 'the agent asked the lab');
  } finally {
    server.close();
  }
});
