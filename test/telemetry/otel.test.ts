// OpenTelemetry export of a run (docs/observability.md), against an in-memory exporter: the span
// tree the GenAI semantic conventions name (invoke_workflow > invoke_agent > chat | execute_tool),
// the gen_ai.* attributes and token counts, the W3C trace context sent on the HTTP effect and in
// the MCP call's `_meta`, a resume's link to the run it continues, an embedded run nesting under
// the caller's active span, and the attack: a vault secret that a compromised model echoes, with
// message content captured, and that goes out in an HTTP header, never reaches the exporter.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { resumeRun, startRun } from '../../runtime/run/run.js';
import { telemetryConfig } from '../../runtime/telemetry/config.js';
import { openStore } from '../../runtime/store/index.js';
import { SECRET, startWorld, type World } from './world.js';

const worlds: World[] = [];
after(async () => {
  for (const w of worlds) await w.close();
});

async function world(): Promise<World> {
  const w = await startWorld();
  worlds.push(w);
  return w;
}

const auth = (w: World) => ({ allowNet: [new URL(w.api.url).host, new URL(w.mcp.url).host, new URL(w.model.url).host] });

function byName(spans: ReadableSpan[], prefix: string): ReadableSpan[] {
  return spans.filter((s) => s.name.startsWith(prefix));
}

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;

test('a multi-actor run exports the GenAI span tree with its attributes, tokens and trace context; no secret reaches the exporter', async () => {
  const w = await world();
  const exporter = new InMemorySpanExporter();
  const lines: string[] = [];
  const run = await startRun({ file: w.file, cwd: w.dir, model: w.modelSpec, env: w.env, authority: auth(w), onOutput: (l) => lines.push(l), telemetry: { exporter, captureContent: true } });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['days: 3']);
  const spans = exporter.getFinishedSpans();

  const [root] = byName(spans, 'invoke_workflow');
  assert.ok(root, spans.map((s) => s.name).join(', '));
  assert.equal(root.name, 'invoke_workflow trip.tn');
  assert.equal(root.attributes['gen_ai.operation.name'], 'invoke_workflow');
  assert.equal(root.attributes['turn.run.outcome'], 'done');
  assert.equal(parentOf(root), undefined, 'the run is a trace of its own');

  const agents = byName(spans, 'invoke_agent');
  assert.equal(agents.length, 2, 'main and the scout');
  const main = agents.find((a) => a.attributes['turn.pid'] === 1)!;
  const scout = agents.find((a) => a.attributes['turn.pid'] !== 1)!;
  assert.equal(parentOf(main), root.spanContext().spanId);
  assert.equal(parentOf(scout), main.spanContext().spanId, 'a spawned process nests under the process that spawned it');
  assert.equal(scout.attributes['gen_ai.operation.name'], 'invoke_agent');

  const chats = byName(spans, 'chat ');
  assert.equal(chats.length, 2);
  const scoutChat = chats.find((c) => parentOf(c) === scout.spanContext().spanId)!;
  const mainChat = chats.find((c) => parentOf(c) === main.spanContext().spanId)!;
  assert.ok(scoutChat && mainChat, 'one model call in each process');
  assert.equal(scoutChat.name, 'chat slow');
  assert.equal(scoutChat.kind, 2 /* CLIENT */);
  const a = scoutChat.attributes;
  assert.equal(a['gen_ai.operation.name'], 'chat');
  assert.equal(a['gen_ai.provider.name'], 'openai');
  assert.equal(a['gen_ai.request.model'], 'slow');
  assert.equal(a['gen_ai.request.max_tokens'], 200);
  assert.equal(a['gen_ai.request.temperature'], 0.2);
  assert.equal(a['gen_ai.usage.input_tokens'], 120);
  assert.equal(a['gen_ai.usage.output_tokens'], 30);
  assert.deepEqual(a['gen_ai.response.finish_reasons'], ['stop']);
  assert.equal(a['turn.confidence'], 0.75);
  assert.equal(a['turn.confidence.source'], 'reported');
  assert.match(String(a['gen_ai.input.messages']), /Suggest a trip about rivers/, 'content captured under the opt-in');

  const tools = byName(spans, 'execute_tool');
  const http = tools.find((t) => t.attributes['gen_ai.tool.name'] === 'http_request')!;
  const mcp = tools.find((t) => t.attributes['gen_ai.tool.name'] === 'lookup')!;
  assert.ok(http && mcp, tools.map((t) => t.name).join(', '));
  assert.equal(mcp.name, 'execute_tool lookup');
  assert.equal(mcp.attributes['mcp.method.name'], 'tools/call');
  assert.equal(http.attributes['url.full'], `${w.api.url}/weather`, 'the URL without its query string');
  assert.equal(parentOf(http), main.spanContext().spanId);

  // W3C trace context: the HTTP effect's header and the MCP call's _meta name their own spans
  const tp = (s: ReadableSpan) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`;
  assert.equal(w.api.seen.length, 1);
  assert.equal(w.api.seen[0].traceparent, tp(http));
  assert.equal(w.api.seen[0].authorization, `Bearer ${SECRET}`, 'the secret went out where it belongs');
  assert.deepEqual(w.mcp.metas.map((m) => (m as { traceparent?: string } | null)?.traceparent), [tp(mcp)]);

  // the attack: the secret was sent in a header and echoed by the model into both replies
  const everything = JSON.stringify(spans.map((s) => ({ n: s.name, a: s.attributes, e: s.events, r: s.resource.attributes, st: s.status })));
  assert.ok(!everything.includes(SECRET), 'the secret reached the exporter');
  assert.match(String(scoutChat.attributes['gen_ai.output.messages']), /Lyon /, 'the reply was exported, redacted');
});

test('without the opt-in no message content is exported', async () => {
  const w = await world();
  const exporter = new InMemorySpanExporter();
  const run = await startRun({ file: w.file, cwd: w.dir, model: w.modelSpec, env: w.env, authority: auth(w), telemetry: { exporter } });
  assert.equal((await run.start()).kind, 'done');
  const chats = byName(exporter.getFinishedSpans(), 'chat ');
  assert.equal(chats.length, 2);
  for (const c of chats) {
    assert.deepEqual(Object.keys(c.attributes).filter((k) => /messages|instructions/.test(k)), []);
  }
});

test('an embedded run nests under the caller\'s active span, in the caller\'s own provider', async () => {
  const w = await world();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  try {
    const caller = provider.getTracer('app').startSpan('POST /trips');
    await context.with(trace.setSpan(context.active(), caller), async () => {
      const run = await startRun({ file: w.file, cwd: w.dir, model: w.modelSpec, env: w.env, authority: auth(w), telemetry: { tracerProvider: provider } });
      assert.equal((await run.start()).kind, 'done');
    });
    caller.end();
    const spans = exporter.getFinishedSpans();
    const [root] = byName(spans, 'invoke_workflow');
    assert.equal(root.spanContext().traceId, caller.spanContext().traceId);
    assert.equal(parentOf(root), caller.spanContext().spanId);
  } finally {
    context.disable();
  }
});

test('with no endpoint given, an embedding app\'s global tracer provider gets the spans', async () => {
  const w = await world();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  assert.ok(trace.setGlobalTracerProvider(provider));
  try {
    const run = await startRun({ file: w.file, cwd: w.dir, model: w.modelSpec, env: w.env, authority: auth(w), telemetry: { enabled: true } });
    assert.equal((await run.start()).kind, 'done');
    await provider.forceFlush();
    const names = exporter.getFinishedSpans().map((s) => s.name);
    assert.ok(names.includes('invoke_workflow trip.tn') && names.includes('chat slow'), names.join(', '));
  } finally {
    trace.disable();
  }
});

test('a resumed run links to the span of the run it continues; a forged record links to nothing', async () => {
  const w = await world();
  const store = path.join(w.dir, 'store');
  const file = path.join(w.dir, 'pause.tn');
  fs.writeFileSync(file, 'call("echo", "before");\nsuspend;\ncall("echo", "after");\n');
  const first = new InMemorySpanExporter();
  const run = await startRun({ file, cwd: w.dir, store, env: w.env, telemetry: { exporter: first } });
  const r = await run.start();
  assert.equal(r.kind, 'suspended');
  const [root] = byName(first.getFinishedSpans(), 'invoke_workflow');
  assert.equal(root.attributes['turn.run.outcome'], 'suspended');
  assert.ok(root.events.some((e) => e.name === 'turn.wait'));
  const second = new InMemorySpanExporter();
  const resumed = await resumeRun({ runId: r.runId, cwd: w.dir, store, env: w.env, telemetry: { exporter: second } });
  assert.equal((await resumed.start()).kind, 'done');
  const [again] = byName(second.getFinishedSpans(), 'invoke_workflow');
  assert.equal(again.attributes['turn.run.resumed'], true);
  assert.equal(again.attributes['turn.run.id'], r.runId);
  assert.deepEqual(again.links.map((l) => [l.context.traceId, l.context.spanId]), [[root.spanContext().traceId, root.spanContext().spanId]]);

  // a store is outside data: a recorded traceparent that is not one links nowhere (and fails nothing)
  const run2 = await startRun({ file, cwd: w.dir, store, env: w.env, telemetry: { exporter: new InMemorySpanExporter() } });
  const r2 = await run2.start();
  assert.equal(r2.kind, 'suspended');
  const st = openStore(store);
  try {
    const db = (st as unknown as { db?: { prepare(sql: string): { run(...a: unknown[]): unknown } } }).db;
    assert.ok(db, 'the store exposes its database to the test');
    const record = st.getRun(r2.runId)!;
    db.prepare('UPDATE runs SET meta = ? WHERE id = ?').run(JSON.stringify({ ...record.meta, traceparent: '00-' + 'f'.repeat(32) + '-zz' }), r2.runId);
  } finally {
    st.close();
  }
  const third = new InMemorySpanExporter();
  const forged = await resumeRun({ runId: r2.runId, cwd: w.dir, store, env: w.env, telemetry: { exporter: third } });
  assert.equal((await forged.start()).kind, 'done');
  const [f] = byName(third.getFinishedSpans(), 'invoke_workflow');
  assert.deepEqual(f.links, []);
});

test('a provider retry is an event on its chat span; a re-ask is a chat span of its own, and an event on its process', async () => {
  // request 1: 503 (sent again at once), request 2: a reply that breaks the schema, request 3: a good one
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      if (n === 1) return void res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}');
      const content = JSON.stringify({ value: n === 2 ? { days: 'three' } : { city: 'Lyon', days: 3 }, confidence: 0.6 });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const w = await world();
    const file = path.join(w.dir, 'reask.tn');
    fs.writeFileSync(file, 'struct Plan { city: Str, days: Num };\nlet p = infer Plan { "Plan a trip."; };\ncall("echo", p.city);\n');
    const exporter = new InMemorySpanExporter();
    const port = (server.address() as AddressInfo).port;
    const run = await startRun({ file, cwd: w.dir, model: `openai:m?base_url=http://127.0.0.1:${port}/v1&logprobs=0&stream=0`, env: w.env, authority: { allowNet: [`127.0.0.1:${port}`] }, telemetry: { exporter } });
    assert.equal((await run.start()).kind, 'done');
    assert.equal(n, 3);
    const spans = exporter.getFinishedSpans();
    const chats = byName(spans, 'chat ').sort((a, b) => Number(a.attributes['turn.infer.attempt']) - Number(b.attributes['turn.infer.attempt']));
    assert.deepEqual(chats.map((c) => [c.attributes['turn.infer.attempt'], c.attributes['turn.infer.reask'], c.attributes['turn.infer.valid']]), [[1, false, false], [2, true, true]]);
    assert.deepEqual(chats[0].events.map((e) => [e.name, e.attributes?.['http.response.status_code']]), [['turn.http.retry', 503]]);
    const [main] = byName(spans, 'invoke_agent');
    assert.deepEqual(main.events.map((e) => [e.name, e.attributes?.['turn.infer.attempt']]), [['turn.infer.reask', 2]]);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('telemetry is off unless asked, OTEL_SDK_DISABLED wins, and a bad endpoint or header is a clear error', () => {
  assert.equal(telemetryConfig(undefined, {}), undefined);
  assert.equal(telemetryConfig(undefined, { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }), undefined);
  assert.equal(telemetryConfig({ enabled: true }, { OTEL_SDK_DISABLED: 'true' }), undefined);
  assert.equal(telemetryConfig(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url, 'http://collector:4318/v1/traces');
  assert.equal(telemetryConfig(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:1/t' })?.url, 'http://c:1/t');
  assert.equal(telemetryConfig({ endpoint: 'http://127.0.0.1:6006' }, {})?.url, 'http://127.0.0.1:6006/v1/traces', 'an endpoint alone turns it on');
  const c = telemetryConfig({ enabled: true }, { OTEL_EXPORTER_OTLP_HEADERS: 'api_key=a%3Db,x=y', OTEL_SERVICE_NAME: 'svc' })!;
  assert.deepEqual(c.headers, { api_key: 'a=b', x: 'y' });
  assert.equal(c.serviceName, 'svc');
  assert.equal(c.url, undefined, 'no endpoint given: an app\'s global provider, else http://localhost:4318/v1/traces');
  assert.throws(() => telemetryConfig(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///etc/passwd' }), /must be http or https/);
  assert.throws(() => telemetryConfig({ enabled: true }, { OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }), /OTEL_EXPORTER_OTLP_HEADERS: "novalue" is not KEY=VALUE/);
  assert.throws(() => telemetryConfig({ enabled: true }, { OTEL_EXPORTER_OTLP_HEADERS: 'a=%0d%0aInjected: 1' }), /line break/);
});
