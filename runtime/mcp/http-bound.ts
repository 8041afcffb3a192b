// The byte bound of a Streamable HTTP server's messages (stdio.ts has the stdio one): the SDK's
// transport reads a JSON reply whole and an SSE stream event by event, with no limit. A response
// passes through here first. A JSON reply over the bound errors its body, so the request fails
// with the bound's message; an SSE event over it is dropped as it arrives (memory stays at the
// bound) and, unless it is a notification, an error reply for the POST's requests takes its place,
// so the call fails at once instead of waiting for its time limit.
import { REPLY_TOO_LARGE, describeBytes } from './stdio.js';

const KEPT_HEAD = 256;

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
export function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const out: (string | number)[] = [];
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    const r = m as { id?: unknown; method?: unknown };
    if (typeof r.method === 'string' && (typeof r.id === 'string' || typeof r.id === 'number')) out.push(r.id);
  }
  return out;
}

function tooLarge(maxBytes: number, bytes: string): string {
  return `the server's reply is over ${describeBytes(maxBytes)} (${bytes}), the most one MCP message may be; it was dropped unread (the bound of a Streamable HTTP server's messages)`;
}

/** Whether an SSE event's first bytes carry a JSON-RPC message that starts with its method (a notification or a request). */
function eventStartsWithMethod(head: string): boolean {
  const data = head.indexOf('data:');
  if (data < 0) return false;
  const compact = head.slice(data + 5).replace(/\s+/g, '');
  return compact.startsWith('{"method":') || compact.startsWith('{"jsonrpc":"2.0","method":');
}

/** An SSE body whose events are each at most `maxBytes`; an oversized one becomes error replies for `ids`. */
function boundedEvents(body: ReadableStream<Uint8Array>, maxBytes: number, ids: (string | number)[]): ReadableStream<Uint8Array> {
  let pieces: Uint8Array[] = [];
  let size = 0;
  let lineEmpty = true;
  let dropping: { bytes: number; head: string } | undefined;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        let from = 0;
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i];
          if (b === 13) continue; // CR belongs to a line ending
          if (b !== 10) {
            lineEmpty = false;
            continue;
          }
          if (!lineEmpty) {
            lineEmpty = true;
            continue;
          }
          // a blank line: the event ends at i
          take(chunk.subarray(from, i + 1));
          from = i + 1;
          if (dropping) {
            if (!eventStartsWithMethod(dropping.head)) {
              const message = tooLarge(maxBytes, `it was ${dropping.bytes.toLocaleString('en-US')} bytes`);
              for (const id of ids) out.enqueue(enc.encode(`data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: REPLY_TOO_LARGE, message } })}\n\n`));
            }
            dropping = undefined;
          } else {
            for (const p of pieces) out.enqueue(p);
          }
          pieces = [];
          size = 0;
        }
        take(chunk.subarray(from));
      },
    }),
  );

  function take(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (dropping) {
      dropping.bytes += piece.length;
      if (dropping.head.length < KEPT_HEAD) dropping.head += dec.decode(piece.subarray(0, KEPT_HEAD));
      return;
    }
    if (size + piece.length <= maxBytes) {
      pieces.push(piece.slice());
      size += piece.length;
      return;
    }
    const held = new Uint8Array(size);
    let at = 0;
    for (const p of pieces) {
      held.set(p, at);
      at += p.length;
    }
    dropping = { bytes: size + piece.length, head: dec.decode(held.subarray(0, KEPT_HEAD)) + (size < KEPT_HEAD ? dec.decode(piece.subarray(0, KEPT_HEAD - size)) : '') };
    pieces = [];
    size = 0;
  }
}

/** A JSON body that errors once it passes `maxBytes`. */
function boundedBody(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let size = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        size += chunk.length;
        if (size > maxBytes) out.error(new Error(tooLarge(maxBytes, `${size.toLocaleString('en-US')} bytes or more`)));
        else out.enqueue(chunk);
      },
    }),
  );
}

/** `response` with its body held to `maxBytes` per message (see the top of this file). `ids`: the requests the POST carried. */
export function boundedResponse(response: Response, maxBytes: number, ids: (string | number)[]): Response {
  // a body-less status cannot be rebuilt with a body (and has none to bound)
  if (!response.body || response.status < 200 || [204, 205, 304].includes(response.status)) return response;
  const type = response.headers.get('content-type') ?? '';
  const body = type.includes('text/event-stream') ? boundedEvents(response.body, maxBytes, ids) : boundedBody(response.body, maxBytes);
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
