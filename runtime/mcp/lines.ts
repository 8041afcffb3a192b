// Splits a stdio MCP server's output into newline-delimited messages, none longer than a bound.
// The SDK's ReadBuffer throws from inside the stream's data handler when its 10 MB buffer fills,
// which nothing can catch (the `turn` process died with a JavaScript stack trace). Here a line over
// the bound is never held: its bytes are counted and dropped as they arrive, and once its newline
// comes it is reported as `oversized` with its first and last bytes, where the JSON-RPC id is
// (stdio.ts answers the request it belongs to with an error).

/** How many bytes of an oversized line are kept from each end to find its id. */
const KEPT_ENDS = 256;

export type Line = { kind: 'line'; text: string } | { kind: 'oversized'; bytes: number; head: string; tail: string };

export class BoundedLineReader {
  /** the pieces of the line being read (while it is under the bound) */
  private pieces: Buffer[] = [];
  private length = 0;
  /** set while the line being read is over the bound: what is kept of it */
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(readonly maxBytes: number) {}

  /** The lines `chunk` completes, in order. */
  push(chunk: Buffer): Line[] {
    const out: Line[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl < 0) break;
      out.push(this.finish());
      start = nl + 1;
    }
    return out;
  }

  clear(): void {
    this.pieces = [];
    this.length = 0;
    this.dropping = undefined;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (!this.dropping && this.length + piece.length <= this.maxBytes) {
      this.pieces.push(piece);
      this.length += piece.length;
      return;
    }
    if (!this.dropping) {
      const held = Buffer.concat(this.pieces, this.length);
      this.pieces = [];
      this.length = 0;
      this.dropping = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
      this.drop(held);
    }
    this.drop(piece);
  }

  private drop(piece: Buffer): void {
    const d = this.dropping!;
    d.bytes += piece.length;
    if (d.head.length < KEPT_ENDS) {
      const more = piece.subarray(0, KEPT_ENDS - d.head.length);
      d.head = Buffer.from(Buffer.concat([d.head, more]));
      piece = piece.subarray(more.length);
    }
    if (piece.length === 0) return;
    // copied, so a kept tail never pins the server's whole chunk in memory
    d.tail = Buffer.from(piece.length >= KEPT_ENDS ? piece.subarray(piece.length - KEPT_ENDS) : Buffer.concat([d.tail, piece]).subarray(-KEPT_ENDS));
  }

  private finish(): Line {
    const d = this.dropping;
    if (d) {
      this.dropping = undefined;
      return { kind: 'oversized', bytes: d.bytes, head: d.head.toString('utf8'), tail: d.tail.toString('utf8') };
    }
    const text = Buffer.concat(this.pieces, this.length).toString('utf8').replace(/\r$/, '');
    this.pieces = [];
    this.length = 0;
    return { kind: 'line', text };
  }
}

/**
 * The JSON-RPC ids an oversized message's kept ends name, first the likeliest: the TypeScript SDK
 * writes `{"result":...,"jsonrpc":"2.0","id":7}` (the id last), others write it first. A plain scan,
 * no regular expression: the text is the server's.
 */
export function idCandidates(head: string, tail: string): (string | number)[] {
  const out: (string | number)[] = [];
  const at = (text: string, from: number): void => {
    let i = from + '"id":'.length;
    while (text[i] === ' ') i++;
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      if (close > i) out.push(text.slice(i + 1, close));
      return;
    }
    let j = i;
    while (j < text.length && ((text[j] >= '0' && text[j] <= '9') || (j === i && text[j] === '-'))) j++;
    if (j > i) out.push(Number(text.slice(i, j)));
  };
  const last = tail.lastIndexOf('"id":');
  if (last >= 0) at(tail, last);
  const first = head.indexOf('"id":');
  if (first >= 0) at(head, first);
  return out;
}
