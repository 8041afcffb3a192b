// The walkthrough's example (package.json `walkthroughs`, docs/walkthrough/). No `vscode` import.

/** The walkthrough's example program (docs/walkthrough/example.md shows it). */
export const EXAMPLE = `// A first agent program (the Turn walkthrough): \`infer Mood\` asks the model for a typed value.
struct Mood { label: "glad" | "calm" | "tired" | "upset", score: Num };

turn {
    let m = infer Mood { "Rate the mood of: 'Shipped the release, now a long weekend!'"; };
    call("echo", m.label + " (" + call("json_stringify", confidence m) + ")");
}
`;
