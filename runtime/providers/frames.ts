// Framing of streamed replies: server-sent events (OpenAI-compatible servers, Anthropic) and
// newline-delimited JSON (Ollama's native API). Bytes come in as they arrive, split anywhere (in
// the middle of a line, of a UTF-8 character); each complete frame is handed to `onFrame`.
//
// The reader is linear in the bytes it is given, and bounded: each chunk is scanned once for line
// ends (a 0x0A byte never occurs inside a multi-byte UTF-8 character, so lines are cut on bytes
// and decoded whole), the part of a line still open is copied into a buffer that doubles when full
// (never re-joined or re-scanned, and a server sending one byte per packet costs no more), and a line — or an SSE event's data lines together — longer than `maxFrameBytes`
// fails with FrameTooLarge instead of growing without end (a stream without newlines, or without
// the blank line that ends an event).

export interface FrameReader {
  push(chunk: Buffer): void;
  /** the stream ended: a last frame without its final newline is handed over too */
  end(): void;
}

/** A line or an SSE event over the frame bound. */
export class FrameTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly what: 'a line' | 'an event',
  ) {
    super(`${what} of the stream is over ${limit} bytes`);
  }
}

/** The default bound of one frame (docs/reliability.md, *Bounds*). */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

export function readFrames(framing: 'sse' | 'ndjson', onFrame: (data: string, event: string | undefined) => void, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES): FrameReader {
  // the line still open: its bytes, in a buffer that doubles when full
  let open = Buffer.alloc(256);
  let length = 0;
  // SSE state: the event being built, and the bytes of its data lines
  let data: string[] = [];
  let dataBytes = 0;
  let event: string | undefined;
  const line = (bytes: Buffer) => {
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (framing === 'ndjson') {
      if (text.trim() !== '') onFrame(text, undefined);
      return;
    }
    if (text === '') {
      if (data.length > 0) onFrame(data.join('\n'), event);
      data = [];
      dataBytes = 0;
      event = undefined;
      return;
    }
    if (text.startsWith(':')) return; // a comment (keep-alive)
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      dataBytes += bytes.length;
      if (dataBytes > maxFrameBytes) throw new FrameTooLarge(maxFrameBytes, 'an event');
      data.push(value);
    } else if (field === 'event') event = value;
  };
  const take = (piece: Buffer) => {
    if (length + piece.length > maxFrameBytes) throw new FrameTooLarge(maxFrameBytes, 'a line');
    if (length + piece.length > open.length) {
      const grown = Buffer.alloc(Math.min(maxFrameBytes, Math.max(open.length * 2, length + piece.length)));
      open.copy(grown, 0, 0, length);
      open = grown;
    }
    piece.copy(open, length);
    length += piece.length;
  };
  const close = () => {
    const whole = open.subarray(0, length);
    length = 0;
    line(whole);
  };
  return {
    push(chunk) {
      let from = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
        if (length === 0 && nl - from <= maxFrameBytes) line(chunk.subarray(from, nl)); // a whole line in this chunk: no copy
        else {
          take(chunk.subarray(from, nl));
          close();
        }
        from = nl + 1;
      }
      if (from < chunk.length) take(chunk.subarray(from));
    },
    end() {
      if (length > 0) close();
      if (framing === 'sse') line(Buffer.alloc(0));
    },
  };
}
