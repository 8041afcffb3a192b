// A monotonic clock in milliseconds, for durations (time budgets, event offsets, parse caps).
// `performance.now()` is the same clock, but its first use loads Node's perf_hooks (a dozen modules
// outside Node's start-up snapshot), which every `turn run` and `turn lsp` paid at start
// (docs/performance.md, *Cold start, second pass*); process.hrtime is part of the process object.
export function nowMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}
