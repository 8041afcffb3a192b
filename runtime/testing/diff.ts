// A line diff for people: what a recorded model request said against what the program sends now.
// Longest common subsequence over lines (requests are short), shown as `- recorded` / `+ now`
// lines with a little unchanged context around each change.

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** The edit script from `a` to `b`, line by line. */
export function diffLines(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..]
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ op: '-', text: a[i++] });
    else out.push({ op: '+', text: b[j++] });
  }
  while (i < n) out.push({ op: '-', text: a[i++] });
  while (j < m) out.push({ op: '+', text: b[j++] });
  return out;
}

/** How many lines differ (the distance used to pick the closest recorded request). */
export function diffSize(a: string[], b: string[]): number {
  return diffLines(a, b).filter((l) => l.op !== ' ').length;
}

/** The diff as text: changed lines with `context` unchanged lines around them, `…` for the gaps. */
export function formatDiff(lines: DiffLine[], context = 2, maxWidth = 200): string {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, k) => {
    if (l.op === ' ') return;
    for (let d = Math.max(0, k - context); d <= Math.min(lines.length - 1, k + context); d++) keep[d] = true;
  });
  const out: string[] = [];
  let gap = false;
  lines.forEach((l, k) => {
    if (!keep[k]) {
      gap = true;
      return;
    }
    if (gap && out.length > 0) out.push('  …');
    gap = false;
    // a changed line shown from a little before where it starts to differ from its pair
    const pair = l.op === '-' && lines[k + 1]?.op === '+' ? lines[k + 1].text : l.op === '+' && lines[k - 1]?.op === '-' ? lines[k - 1].text : undefined;
    let text = l.text;
    if (pair !== undefined) {
      let p = 0;
      while (p < text.length && p < pair.length && text[p] === pair[p]) p++;
      if (p > 60) text = '…' + text.slice(p - 40);
    }
    if (text.length > maxWidth) text = text.slice(0, maxWidth - 1) + '…';
    out.push(`${l.op} ${text}`);
  });
  return out.join('\n');
}
