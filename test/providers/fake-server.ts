// A local stand-in for a model API on 127.0.0.1 (ephemeral port): answers each request with the
// next scripted response, in the real wire format of the API under test, and records what it got.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

/** One scripted answer: a status, headers and a JSON body; or `hang` (never answer); or `truncate` (send part of the body, then cut the connection). */
export type Scripted =
  | { status: number; headers?: Record<string, string>; body: unknown }
  | { hang: true }
  | { truncate: string };

export interface FakeServer {
  url: string;
  received: Received[];
  /** answers still queued */
  queue: Scripted[];
  close(): Promise<void>;
}

/** Reads `req` whole and hands it to `then` as Received (its body parsed when it is JSON, else `{}`). */
export function receive(req: http.IncomingMessage, then: (r: Received) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      // recorded as is
    }
    then({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json });
  });
}

export async function fakeServer(answers: Scripted[] | ((req: Received, n: number) => Scripted)): Promise<FakeServer> {
  const received: Received[] = [];
  const queue = Array.isArray(answers) ? answers.slice() : [];
  const server = http.createServer((req, res) => {
    receive(req, (r) => {
      received.push(r);
      const a = Array.isArray(answers) ? queue.shift() : answers(r, received.length);
      if (!a) {
        res.writeHead(599, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the fake server has no answer left' } }));
        return;
      }
      if ('hang' in a) return; // never answers; the client must time out
      if ('truncate' in a) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(a.truncate.length + 100) });
        res.write(a.truncate);
        setTimeout(() => res.destroy(), 10);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    queue,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- the real wire formats

export function openaiCompletion(content: string, options: { finish?: string; logprobs?: { token: string; logprob: number }[]; usage?: [number, number] } = {}) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1700000000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: options.logprobs ? { content: options.logprobs.map((t) => ({ ...t, bytes: [...Buffer.from(t.token)], top_logprobs: [] })) } : null,
        finish_reason: options.finish ?? 'stop',
      },
    ],
    usage: { prompt_tokens: options.usage?.[0] ?? 50, completion_tokens: options.usage?.[1] ?? 10, total_tokens: (options.usage?.[0] ?? 50) + (options.usage?.[1] ?? 10), prompt_tokens_details: { cached_tokens: 0 } },
    system_fingerprint: 'fp_test',
  };
}

export function openaiError(status: number, message: string, type = 'server_error') {
  return { error: { message, type, param: null, code: null }, status };
}

export function anthropicMessage(input: unknown, options: { stop?: string; usage?: [number, number] } = {}) {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [{ type: 'tool_use', id: 'toolu_test', name: 'turn_reply', input }],
    stop_reason: options.stop ?? 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: options.usage?.[0] ?? 80, output_tokens: options.usage?.[1] ?? 20 },
  };
}

export function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}
