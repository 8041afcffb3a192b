// Framing of streamed replies: server-sent events (OpenAI-compatible servers, Anthropic, Gemini),
// newline-delimited JSON (Ollama's native API) and AWS's binary event stream (Bedrock's
// ConverseStream; readEventStream, below). Bytes come in as they arrive, split anywhere (in
// the middle of a line, of a UTF-8 character); each complete frame is handed to `onFrame`.
//
// The reader is linear in the bytes it is given, and bounded: each chunk is scanned once for line
// ends (a 0x0A byte never occurs inside a multi-byte UTF-8 character, so lines are cut on bytes
// and decoded whole), the part of a line still open is copied into a buffer that doubles when full
// (never re-joined or re-scanned, and a server sending one byte per packet costs no more), and a line — or an SSE event's data lines together — longer than `maxFrameBytes`
// fails with FrameTooLarge instead of growing without end (a stream without newlines, or without
// the blank line that ends an event).

import type { Framing } from './types.js';

export interface FrameReader {
  push(chunk: Buffer): void;
  /** the stream ended: a last frame without its final newline is handed over too */
  end(): void;
}

/** A line or an SSE event over the frame bound. */
export class FrameTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly what: 'a line' | 'an event' | 'a message',
  ) {
    super(`${what} of the stream is over ${limit} bytes`);
  }
}

/** The default bound of one frame (docs/reliability.md, *Bounds*). */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

export function readFrames(framing: Framing, onFrame: (data: string, event: string | undefined) => void, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES): FrameReader {
  if (framing === 'aws-eventstream') return readEventStream(onFrame, maxFrameBytes);
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

// ---- AWS event stream (application/vnd.amazon.eventstream)

/** A binary event-stream message that cannot be read: its byte offset in the stream says where. */
export class MalformedMessage extends Error {}

/** The smallest message: the prelude (total length, headers length, prelude CRC) and the message CRC. */
const MIN_MESSAGE = 16;

/**
 * AWS's event stream: each message is `total length (u32) | headers length (u32) | prelude CRC32 |
 * headers | payload | message CRC32`, big-endian. Messages are cut by their announced length (over
 * `maxFrameBytes` fails before any of it is buffered) and decoded by Smithy's EventStreamCodec (the
 * AWS SDK's own decoder, which checks both CRCs), loaded on the first streamed Bedrock reply. Each
 * message's payload goes to `onFrame` as UTF-8 text with its `:event-type` header as the event, or
 * `exception:TYPE` / `error:CODE` for an exception or error message.
 */
function readEventStream(onFrame: (data: string, event: string | undefined) => void, maxFrameBytes: number): FrameReader {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EventStreamCodec } = require('@smithy/core/event-streams') as typeof import('@smithy/core/event-streams');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { toUtf8, fromUtf8 } = require('@smithy/core/serde') as typeof import('@smithy/core/serde');
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let pending: Buffer[] = [];
  let buffered = 0;
  let offset = 0; // bytes of the stream before the message being read
  const header = (h: Record<string, { type: string; value: unknown }>, name: string): string | undefined => {
    const v = h[name];
    return v && v.type === 'string' && typeof v.value === 'string' ? v.value : undefined;
  };
  const message = (bytes: Buffer) => {
    let decoded: { headers: Record<string, { type: string; value: unknown }>; body: Uint8Array };
    try {
      decoded = codec.decode(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    } catch (e) {
      throw new MalformedMessage(`the event-stream message at byte ${offset} (${bytes.length} bytes) cannot be read: ${(e as Error).message}`);
    }
    const kind = header(decoded.headers, ':message-type');
    const event =
      kind === 'exception' ? `exception:${header(decoded.headers, ':exception-type') ?? 'unknown'}` :
      kind === 'error' ? `error:${header(decoded.headers, ':error-code') ?? 'unknown'}` :
      header(decoded.headers, ':event-type');
    onFrame(Buffer.from(decoded.body).toString('utf8'), event);
  };
  let need = 0; // the announced length of the message being read, once its first 4 bytes came
  const drain = () => {
    for (;;) {
      if (need === 0) {
        if (buffered < 4) return;
        if (pending[0].length < 4) pending = [Buffer.concat(pending)]; // once per message at most
        const total = pending[0].readUInt32BE(0);
        if (total > maxFrameBytes) throw new FrameTooLarge(maxFrameBytes, 'a message');
        if (total < MIN_MESSAGE) throw new MalformedMessage(`the event-stream message at byte ${offset} announces ${total} bytes, fewer than the ${MIN_MESSAGE} of its prelude and checksums`);
        need = total;
      }
      // the pieces are joined once, when the whole message is there (no copy per chunk)
      if (buffered < need) return;
      const all = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      message(all.subarray(0, need));
      offset += need;
      buffered -= need;
      pending = buffered > 0 ? [all.subarray(need)] : [];
      need = 0;
    }
  };
  return {
    push(chunk) {
      pending.push(chunk);
      buffered += chunk.length;
      drain();
    },
    end() {
      if (buffered > 0) throw new MalformedMessage(`the event stream ended inside a message: ${buffered} bytes after byte ${offset} are not a whole message`);
    },
  };
}
