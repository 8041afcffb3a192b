// A source text with its line table: converts UTF-16 offsets (what spans hold) into
// 1-based line/column pairs. Columns count Unicode code points, so a column after "é" or "語"
// or an emoji is what a person counts; `utf16Column` gives the LSP's code-unit column instead.

export interface Position {
  /** 1-based line */
  line: number;
  /** 1-based column in Unicode code points */
  column: number;
}

export class SourceFile {
  private readonly lineStarts: number[];

  constructor(
    readonly path: string,
    readonly text: string,
  ) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) starts.push(i + 1);
    }
    this.lineStarts = starts;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line index containing `offset`. */
  lineIndexOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const line = this.lineIndexOf(clamped);
    const start = this.lineStarts[line];
    let column = 1;
    for (let i = start; i < clamped; i++) {
      const c = this.text.charCodeAt(i);
      // A surrogate pair is one code point: count only its high half.
      if (c < 0xdc00 || c > 0xdfff) column++;
    }
    return { line: line + 1, column };
  }

  /** 0-based line and UTF-16 column, as the Language Server Protocol counts them. */
  utf16Position(offset: number): { line: number; character: number } {
    const line = this.lineIndexOf(offset);
    return { line, character: offset - this.lineStarts[line] };
  }

  /** Inverse of `utf16Position`. */
  offsetAt(line: number, character: number): number {
    if (line >= this.lineStarts.length) return this.text.length;
    const start = this.lineStarts[Math.max(0, line)];
    const end = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1] - 1 : this.text.length;
    return Math.min(start + Math.max(0, character), end);
  }

  lineText(line1: number): string {
    const start = this.lineStarts[line1 - 1] ?? this.text.length;
    const next = this.lineStarts[line1];
    return this.text.slice(start, next === undefined ? undefined : next - 1).replace(/\r$/, '');
  }
}
