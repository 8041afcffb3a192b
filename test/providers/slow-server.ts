// A slow stand-in for a model server on 127.0.0.1: it streams OpenAI-compatible chat-completion
// chunks (server-sent events) at a chosen pace, can stall mid-reply, serves one request at a time
// (a one-slot local server: the others wait in its queue), and can write digits without end like a
// weak model under a grammar that does not bound a number. It records what it received and when.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowReceived {
  body: Record<string, unknown>;
  /** ms since the server started, when the request arrived and when its answer began */
  arrived: number;
  started: number;
}

export type Plan =
  /** stream `text` in pieces of `piece` characters, one every `everyMs`; stall forever after `stallAfter` pieces */
  | { stream: string; piece?: number; everyMs?: number; stallAfter?: number; usage?: [number, number]; finish?: string }
  /** grammar-less digits: `{"value": VALUE, "confidence": 0.` then a digit per chunk, until max_tokens (when `honour`) or `cap` chunks */
  | { digits: unknown; honour: boolean; cap?: number; everyMs?: number }
  /** never answers */
  | { hang: true }
  /** an Anthropic message stream whose forced tool input is `input`, in pieces */
  | { anthropic: unknown; piece?: number; everyMs?: number };

export interface SlowServer {
  url: string;
  received: SlowReceived[];
  /** the most requests it answered at once */
  maxConcurrent: number;
  /** chunks written per request, in arrival order */
  chunks: number[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function slowServer(plan: (body: Record<string, unknown>, n: number) => Plan, options: { slots?: number } = {}): Promise<SlowServer> {
  const t0 = performance.now();
  const received: SlowReceived[] = [];
  const chunks: number[] = [];
  const slots = options.slots ?? Infinity;
  let active = 0;
  let maxConcurrent = 0;
  const queue: (() => void)[] = [];
  const closed = { now: false };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      void (async () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
        } catch {
          // kept empty
        }
        const n = received.length;
        const r: SlowReceived = { body, arrived: performance.now() - t0, started: -1 };
        received.push(r);
        chunks.push(0);
        if (active >= slots) await new Promise<void>((go) => queue.push(go));
        active++;
        maxConcurrent = Math.max(maxConcurrent, active);
        r.started = performance.now() - t0;
        let gone = false;
        res.on('close', () => (gone = true));
        const write = (data: unknown, event?: string) => {
          if (gone || closed.now) return false;
          res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
          chunks[n]++;
          return true;
        };
        try {
          const p = plan(body, n);
          if ('hang' in p) return; // holds its slot until the client gives up
          if (body.stream !== true && !('anthropic' in p)) {
            // an unstreamed request: the same generation, answered as one JSON body at its end
            let content = '';
            let finish = 'stop';
            if ('stream' in p) {
              const size = p.piece ?? 4;
              const pieces = Math.ceil(p.stream.length / size);
              if (p.stallAfter !== undefined && p.stallAfter < pieces) return;
              for (let i = 0; i < pieces && !gone; i++) await sleep(p.everyMs ?? 5);
              content = p.stream;
              finish = p.finish ?? 'stop';
            } else {
              const max = typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
              const count = Math.min(p.cap ?? 20_000, p.honour ? max : Infinity);
              content = `{"value": ${JSON.stringify(p.digits)}, "confidence": 0.` + Array.from({ length: count - 1 }, (_, i) => String((i + 1) % 10)).join('');
              finish = 'length';
              chunks[n] = count;
            }
            if (gone) return;
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ id: 'chatcmpl-slow', model: 'slow', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }], usage: { prompt_tokens: 40, completion_tokens: 10 } }));
            return;
          }
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          if ('stream' in p) {
            const size = p.piece ?? 4;
            let k = 0;
            for (let i = 0; i < p.stream.length; i += size) {
              if (p.stallAfter !== undefined && k++ >= p.stallAfter) return; // stalls, connection open
              await sleep(p.everyMs ?? 5);
              if (!write({ id: 'chatcmpl-slow', model: 'slow', choices: [{ index: 0, delta: { content: p.stream.slice(i, i + size) }, finish_reason: null }] })) return;
            }
            write({ id: 'chatcmpl-slow', model: 'slow', choices: [{ index: 0, delta: {}, finish_reason: p.finish ?? 'stop' }] });
            const [pt, ct] = p.usage ?? [40, 10];
            write({ id: 'chatcmpl-slow', model: 'slow', choices: [], usage: { prompt_tokens: pt, completion_tokens: ct, prompt_tokens_details: { cached_tokens: 0 } } });
            write('[DONE]');
          } else if ('digits' in p) {
            const max = typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
            const cap = p.cap ?? 20_000;
            const head = `{"value": ${JSON.stringify(p.digits)}, "confidence": 0.`;
            if (!write({ choices: [{ index: 0, delta: { content: head }, finish_reason: null }] })) return;
            let sent = 1;
            while (sent < cap && !(p.honour && sent >= max)) {
              if (p.everyMs) await sleep(p.everyMs);
              else if (sent % 200 === 0) await sleep(0);
              if (!write({ choices: [{ index: 0, delta: { content: String(sent % 10) }, finish_reason: null }] })) return;
              sent++;
            }
            write({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] });
            write('[DONE]');
          } else {
            const input = JSON.stringify(p.anthropic);
            const size = p.piece ?? 5;
            write({ type: 'message_start', message: { id: 'msg_slow', model: 'claude-slow', usage: { input_tokens: 30, output_tokens: 1 } } }, 'message_start');
            write({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'turn_reply', input: {} } }, 'content_block_start');
            for (let i = 0; i < input.length; i += size) {
              await sleep(p.everyMs ?? 2);
              write({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: input.slice(i, i + size) } }, 'content_block_delta');
            }
            write({ type: 'content_block_stop', index: 0 }, 'content_block_stop');
            write({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } }, 'message_delta');
            write({ type: 'message_stop' }, 'message_stop');
          }
          res.end();
        } finally {
          if (!res.writableEnded) await new Promise<void>((r) => (gone ? r() : res.on('close', () => r())));
          active--;
          queue.shift()?.();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    chunks,
    get maxConcurrent() {
      return maxConcurrent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed.now = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
