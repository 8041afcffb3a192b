// A stale recording's difference for a person to read in a narrow view (the Test Explorer's
// message): which parts of the rendered request changed (system, context, prompt, rejected
// replies, schema), then the first differing lines of each, recorded against now, wrapped to a
// width, with the character where they start to differ. The requests are cassette.ts's requestLines.
import { diffLines } from './diff.js';

export interface StaleDiffOptions {
  /** wrap lines at this many characters (default 80) */
  width?: number;
  /** show at most this many differing lines (default 4) */
  maxChanges?: number;
}

/** The part of the request line `k` belongs to. */
function sectionOf(lines: string[], k: number): string {
  for (let i = k; i >= 0; i--) {
    const m = /^(system|context|prompt|options|rejected reply|feedback): /.exec(lines[i] ?? '');
    if (m) return m[1];
    if (/^schema[ :]/.test(lines[i] ?? '')) return 'schema';
    if (/^infer /.test(lines[i] ?? '')) return 'header';
  }
  return 'header';
}

const SECTIONS = ['header', 'system', 'context', 'prompt', 'options', 'rejected reply', 'feedback', 'schema'];

/** `text` cut into lines of at most `width` characters, the first after `first`, the rest after `rest`. */
function wrap(first: string, rest: string, text: string, width: number): string[] {
  const room = Math.max(20, width - first.length);
  const out: string[] = [];
  let t = text;
  do {
    // at a space when there is one in the second half of the line
    const space = t.length > room ? t.lastIndexOf(' ', room) : -1;
    const cut = t.length <= room ? t.length : space > room / 2 ? space + 1 : room;
    out.push(((out.length === 0 ? first : rest) + t.slice(0, cut)).trimEnd());
    t = t.slice(cut);
  } while (t.length > 0);
  return out;
}

/** A line as the diff shows it: the request's own label and indentation taken off. */
function body(line: string): string {
  return line.replace(/^(system|context|prompt|options|rejected reply|feedback): /, '').replace(/^schema ?/, '').replace(/^\s+/, '');
}

/**
 * The readable difference between the recorded request and the one sent now (both as the lines of
 * cassette.ts's requestLines, joined by newlines); '' when they are equal.
 */
export function staleDiff(recorded: string, now: string, options: StaleDiffOptions = {}): string {
  const width = options.width ?? 80;
  const max = options.maxChanges ?? 4;
  const a = recorded.split('\n');
  const b = now.split('\n');
  const lines = diffLines(a, b);
  const changed = new Set<string>();
  const pairs: { section: string; recorded: string | null; now: string | null }[] = [];
  let ia = 0;
  let ib = 0;
  for (let k = 0; k < lines.length; ) {
    if (lines[k].op === ' ') {
      ia++;
      ib++;
      k++;
      continue;
    }
    // a run of changed lines: its removed lines paired in order with its added ones
    const dels: { text: string; at: number }[] = [];
    const adds: { text: string; at: number }[] = [];
    for (; k < lines.length && lines[k].op !== ' '; k++) {
      if (lines[k].op === '-') dels.push({ text: lines[k].text, at: ia++ });
      else adds.push({ text: lines[k].text, at: ib++ });
    }
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      const d = dels[i];
      const n = adds[i];
      const section = d ? sectionOf(a, d.at) : sectionOf(b, n.at);
      if (d) changed.add(sectionOf(a, d.at));
      if (n) changed.add(sectionOf(b, n.at));
      pairs.push({ section, recorded: d ? d.text : null, now: n ? n.text : null });
    }
  }
  if (pairs.length === 0) return '';
  const present = (lines: string[], s: string) => lines.some((_, i) => sectionOf(lines, i) === s);
  const same = SECTIONS.filter((s) => s !== 'header' && !changed.has(s) && (present(a, s) || present(b, s)));
  const out = wrap('', '', `The request differs from the recording in its ${SECTIONS.filter((s) => changed.has(s)).join(', ')}${same.length ? ` (the same: ${same.join(', ')})` : ''}.`, width);
  for (const p of pairs.slice(0, max)) {
    out.push('', `${p.section}:`);
    const r = p.recorded === null ? null : body(p.recorded);
    const n = p.now === null ? null : body(p.now);
    if (r !== null && n !== null) {
      let c = 0;
      while (c < r.length && c < n.length && r[c] === n[c]) c++;
      // from a little before where they part, so a long line shows its difference
      const from = c > 30 ? c - 20 : 0;
      const cut = (s: string) => (from > 0 ? `…${s.slice(from)}` : s);
      out.push(...wrap('  recorded: ', '            ', cut(r), width), ...wrap('  now:      ', '            ', cut(n), width), `  (they differ from character ${c + 1})`);
    } else if (r !== null) out.push(...wrap('  recorded: ', '            ', r, width), '  now:      (no such line)');
    else out.push('  recorded: (no such line)', ...wrap('  now:      ', '            ', n ?? '', width));
  }
  if (pairs.length > max) out.push('', `… and ${pairs.length - max} more differing line${pairs.length - max === 1 ? '' : 's'}`);
  return out.join('\n');
}
