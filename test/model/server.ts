// An OpenAI-compatible chat-completions server on 127.0.0.1 built on node-llama-cpp, for the real
// model tier (`npm run test:model`): the request's `response_format: json_schema` becomes the
// decoding grammar, replies stream as server-sent events when asked (`stream: true`), and
// `max_tokens`, `temperature` and `seed` are honoured. It has one slot, as a small local server:
// requests wait in its queue. One context sequence is kept between requests, so a prompt that
// shares its start with the previous one is evaluated from where they differ; `usage` reports the
// reused tokens as `prompt_tokens_details.cached_tokens`. Not part of Turn: a counterpart to test
// against, written here because the machine has no other OpenAI-compatible server.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

const importModule = new Function('s', 'return import(s)') as (s: string) => Promise<any>;

export interface ModelServer {
  url: string;
  /** requests received, in order (the parsed bodies) */
  received: Record<string, unknown>[];
  loadMs: number;
  close(): Promise<void>;
}

export async function startModelServer(modelPath: string, options: { contextSize?: number; threads?: number } = {}): Promise<ModelServer> {
  const { getLlama, LlamaChatSession } = await importModule('node-llama-cpp');
  const t0 = performance.now();
  const llama = await getLlama({ gpu: false, logLevel: 'error' });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: options.contextSize ?? 4096, sequences: 1, ...(options.threads ? { threads: options.threads } : {}) });
  const sequence = context.getSequence();
  const loadMs = Math.round(performance.now() - t0);
  const grammars = new Map<string, Promise<unknown>>();
  const received: Record<string, unknown>[] = [];
  let slot: Promise<unknown> = Promise.resolve();

  async function complete(body: any, res: http.ServerResponse, gone: () => boolean): Promise<void> {
    const messages = (body.messages ?? []) as { role: string; content: string }[];
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
    const chat = messages.filter((m) => m.role !== 'system');
    const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
    let grammar: unknown;
    if (schema) {
      const key = JSON.stringify(schema);
      if (!grammars.has(key)) grammars.set(key, llama.createGrammarForJsonSchema(schema));
      grammar = await grammars.get(key);
    }
    const session = new LlamaChatSession({ contextSequence: sequence, ...(system ? { systemPrompt: system } : {}), autoDisposeSequence: false });
    const history = session.getChatHistory().filter((h: any) => h.type === 'system');
    for (const m of chat.slice(0, -1)) history.push(m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] });
    session.setChatHistory(history);
    const before = { input: sequence.tokenMeter.usedInputTokens, output: sequence.tokenMeter.usedOutputTokens };
    const stream = body.stream === true;
    const id = `chatcmpl-local-${received.length}`;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    if (stream) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown) => {
      if (!gone()) res.write(`data: ${JSON.stringify(data)}\n\n`);
    };
    let result: { responseText: string; stopReason: string };
    try {
      result = await session.promptWithMeta(chat[chat.length - 1]?.content ?? '', {
        ...(grammar ? { grammar } : {}),
        ...(typeof body.max_tokens === 'number' ? { maxTokens: body.max_tokens } : {}),
        ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
        ...(typeof body.seed === 'number' ? { seed: body.seed } : {}),
        signal: abort.signal,
        stopOnAbortSignal: true,
        onTextChunk: stream ? (text: string) => send({ id, object: 'chat.completion.chunk', model: 'local', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }) : undefined,
      });
    } finally {
      session.dispose({ disposeSequence: false });
    }
    const evaluated = sequence.tokenMeter.usedInputTokens - before.input;
    const output = sequence.tokenMeter.usedOutputTokens - before.output;
    const prompt = Math.max(evaluated, sequence.contextTokens.length - output);
    const usage = { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output, prompt_tokens_details: { cached_tokens: Math.max(0, prompt - evaluated) } };
    const finish = result.stopReason === 'maxTokens' ? 'length' : 'stop';
    if (gone()) return;
    if (stream) {
      send({ id, object: 'chat.completion.chunk', model: 'local', choices: [{ index: 0, delta: {}, finish_reason: finish }] });
      send({ id, object: 'chat.completion.chunk', model: 'local', choices: [], usage });
      res.end('data: [DONE]\n\n');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'chat.completion', model: 'local', choices: [{ index: 0, message: { role: 'assistant', content: result.responseText }, finish_reason: finish }], usage }));
    }
  }

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the body is not JSON' } }));
        return;
      }
      received.push(body);
      let closed = false;
      res.on('close', () => (closed = true));
      // one slot: each request waits for the one before
      slot = slot.then(() =>
        closed
          ? undefined
          : complete(body, res, () => closed).catch((e: unknown) => {
              if (closed) return;
              if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ error: { message: (e as Error).message } }));
            }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    loadMs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await slot.catch(() => undefined);
      await context.dispose();
    },
  };
}
