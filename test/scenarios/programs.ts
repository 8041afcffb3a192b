// Turn programs and script fixtures shared by the scenario tests.

export const CLAIMS_PROGRAM = `
let kb = use "std/knowledge";

struct ClaimDraft { text: Str, date: Str, source: Num };
struct Extraction { claims: List<ClaimDraft> };
struct Correction { keep: Bool, text: Str, date: Str };

// The check is a program: a claim's date must be a date one of its cited materials gives.
let CHECK = "date_matches_source";
let CHECK_VERSION = "1";
let date_matches_source = turn(o: Map) -> Any {
    let dates = map(o["cites"], turn(c: Map) -> Any { return c["fields"]["date"]; });
    return {"ok": call("list_contains", dates, o["fields"]["date"]), "evidence": {"claim_date": o["fields"]["date"], "source_dates": dates}};
};

let materials = [
    kb.material("https://example.org/press/2024-03-03", "Acme announces the Rocket, available from 3 March 2024.", {"date": "2024-03-03"}),
    kb.material("https://blog.example.net/rocket-review", "Our review of the Rocket, which shipped on 5 March 2024 in Europe.", {"date": "2024-03-05"})
];
kb.program(CHECK, "a claim's date must appear in one of its cited materials", {"version": CHECK_VERSION});

context.append("Materials:");
let i = 0;
while i < call("len", materials) {
    let m = kb.get(materials[i]);
    context.append("[" + i + "] " + m["text"]);
    let i = i + 1;
}
let extraction = infer Extraction { "Extract dated claims; cite the material each rests on by its number."; };

let surviving = [];
let rejected = [];
let j = 0;
while j < call("len", extraction.claims) {
    let d = extraction.claims[j];
    let c = kb.claim(d.text, [materials[d.source]], {"date": d.date, "proposed_by": "model"});
    let v = kb.check(c, CHECK, CHECK_VERSION, date_matches_source);
    call("echo", c + " " + v["outcome"] + " by " + CHECK + "@" + CHECK_VERSION);
    if v["outcome"] == "rejected" {
        // the model proposes a correction from the check's evidence; the check decides again
        let fix = invoke turn() -> Any {
            context.append("Check " + CHECK + " rejected it: " + call("json_stringify", v["evidence"]));
            return infer Correction { "Correct the claim, or say it cannot be kept: " + d.text; };
        };
        if fix.keep {
            kb.revise(c, {"text": fix.text, "fields": {"date": fix.date}, "note": "corrected after " + CHECK});
            let v = kb.check(c, CHECK, CHECK_VERSION, date_matches_source);
            call("echo", c + " revised, " + v["outcome"]);
        }
    }
    if kb.get(c)["status"] == "rejected" { let rejected = call("list_push", rejected, c); } else { let surviving = call("list_push", surviving, c); }
    let j = j + 1;
}
let texts = map(surviving, turn(id: Str) -> Str { return kb.get(id)["text"]; });
let report = kb.report("Rocket launch", call("str_join", texts, " "), surviving, {"checked_by": CHECK + "@" + CHECK_VERSION});
let committed = kb.commit();
return {"surviving": surviving, "rejected": rejected, "report": kb.inspect(report), "commit": committed,
        "revised": kb.inspect(surviving[1])};
`;

export const CLAIMS_SCRIPT = {
  replies: [
    {
      type: 'Extraction',
      value: {
        claims: [
          { text: 'Acme announced the Rocket for 3 March 2024.', date: '2024-03-03', source: 0 },
          { text: 'The Rocket shipped in Europe on 3 April 2024.', date: '2024-04-03', source: 1 },
          { text: 'The Rocket sold out on 1 February 2024.', date: '2024-02-01', source: 0 },
        ],
      },
      confidence: 0.8,
    },
    { type: 'Correction', match: 'shipped in Europe', value: { keep: true, text: 'The Rocket shipped in Europe on 5 March 2024.', date: '2024-03-05' } },
    { type: 'Correction', match: 'sold out', value: { keep: false, text: '', date: '' } },
  ],
};
