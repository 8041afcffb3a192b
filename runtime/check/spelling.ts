// Close misspellings: the analyzer's "did you mean" and the editor's quick fixes rank candidates
// by the same edit distance.

/** Levenshtein distance (insertions, deletions and substitutions each cost 1). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** ` (did you mean `x`?)` for a close misspelling. */
export function suggest(name: string, candidates: Iterable<string>): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best !== undefined && name.length > 1 && bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? ` (did you mean \`${best}\`?)` : '';
}
