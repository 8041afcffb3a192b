// A small HTTP service that calls a Turn agent per request (docs/embedding.md): Hono on Node, the
// agent's generated typed client (src/turn/agent.ts, from `npm run gen`), and a durable call per
// ticket, so a request retried after the service restarted resumes the ticket's run from its journal:
// a model reply recorded before the restart is replayed, never asked again.
//
//   POST /tickets/:id/triage  {"title": "...", "body": "..."}  →  {"triage": {...}, "confidence": 0.9, ...}
//
// Environment: PORT (default 0: any free port, printed on standard output as {"listening": PORT}),
// TURN_MODEL (default mock), TURN_STORE_DIR (default .turn).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { openStore, TurnError } from 'turn-vscode';
import { triage, type Triage } from './turn/agent.js';

/** What the service answers for a ticket. */
export interface TriageReply {
  ticket: string;
  triage: Triage;
  confidence: number;
  /** the durable run behind the answer */
  runId: string | undefined;
  /** model calls this request made (0 when the ticket's run had finished before) */
  modelCalls: number;
}

const store = openStore(process.env.TURN_STORE_DIR ?? '.turn');
const model = process.env.TURN_MODEL ?? 'mock';
const TICKET = /^[A-Za-z0-9_-]{1,64}$/;

const app = new Hono();

app.post('/tickets/:id/triage', bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.json({ error: 'the request body is over 64 KiB' }, 413) }), async (c) => {
  const ticket = c.req.param('id');
  if (!TICKET.test(ticket)) return c.json({ error: 'a ticket id is 1 to 64 letters, digits, _ or -' }, 400);
  let input: { title?: unknown; body?: unknown };
  try {
    input = await c.req.json();
  } catch {
    return c.json({ error: 'the request body is not JSON' }, 400);
  }
  try {
    // the arguments are checked against the agent's parameter types before any run starts
    const r = await triage(input.title as string, (input.body ?? null) as string | null, {
      model,
      store,
      id: `ticket-${ticket}`,
      // a client that goes away stops the run; the ticket's run stays resumable
      signal: c.req.raw.signal,
    });
    const reply: TriageReply = { ticket, triage: r.value, confidence: r.confidence, runId: r.runId, modelCalls: r.usage.modelCalls };
    return c.json(reply);
  } catch (e) {
    if (e instanceof TurnError && e.kind === 'invalid') return c.json({ error: e.message }, 400);
    if (e instanceof TurnError && e.kind === 'usage') return c.json({ error: e.message }, 409);
    console.error(e instanceof Error ? e.message : e);
    return c.json({ error: 'the agent could not answer' }, 502);
  }
});

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT ?? 0) }, (info) => {
  console.log(JSON.stringify({ listening: info.port }));
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    store.close();
    process.exit(0);
  });
}
