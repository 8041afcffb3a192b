// A local stand-in for a vendor's model API on 127.0.0.1 that records every request byte for byte
// and answers with a raw body: JSON, server-sent events, AWS's binary event stream, or pieces
// written over time (an endless stream). The official SDKs and Turn are pointed at the same one,
// so a test can compare what each sent and check that both read the vendor's documented replies.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { receive, type Received } from './fake-server.js';

/** A request as the fake received it (method, path and query, headers, body, the body as JSON). */
export type Recorded = Received;

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** a JSON value (sent as application/json), or a string / bytes sent as is */
  body?: unknown;
  /** written one after another, `everyMs` apart, then the response ends (unless `endless`) */
  pieces?: (string | Uint8Array)[];
  everyMs?: number;
  /** after the pieces, the last one again without end (until the client hangs up) */
  endless?: boolean;
}

export interface WireFake {
  url: string;
  received: Recorded[];
  close(): Promise<void>;
}

export async function wireFake(answer: (req: Recorded, n: number) => Answer): Promise<WireFake> {
  const received: Recorded[] = [];
  const server = http.createServer((req, res) => {
    receive(req, (r) => {
      received.push(r);
      const a = answer(r, received.length - 1);
      const raw = typeof a.body === 'string' || a.body instanceof Uint8Array;
      res.writeHead(a.status ?? 200, { 'content-type': raw || a.pieces ? 'text/event-stream' : 'application/json', ...a.headers });
      if (!a.pieces) {
        res.end(raw ? (a.body as string | Uint8Array) : JSON.stringify(a.body));
        return;
      }
      const pieces = a.pieces;
      let i = 0;
      const next = () => {
        if (res.destroyed || res.writableEnded) return;
        if (i < pieces.length) res.write(pieces[i++]);
        else if (a.endless && pieces.length > 0) res.write(pieces[pieces.length - 1]);
        else return void res.end();
        setTimeout(next, a.everyMs ?? 0);
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Server-sent events, one per `[event, data]` pair (data as JSON unless a string). */
export function sse(events: [string | undefined, unknown][]): string {
  return events.map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
}

/**
 * A maker of wire fakes for one test file: each call starts one, and all of them close when the
 * file's tests end (the shape every provider test repeated).
 */
export function fakesForFile(): (answer: (req: Recorded, n: number) => Answer) => Promise<WireFake> {
  const fakes: WireFake[] = [];
  after(async () => {
    for (const f of fakes) await f.close();
  });
  return async (answer) => {
    const f = await wireFake(answer);
    fakes.push(f);
    return f;
  };
}
