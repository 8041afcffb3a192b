// `turn mcp FILE`: a Turn program's exported closures served over MCP (the 2025-11-25 revision)
// on standard input/output or, with `--port`, Streamable HTTP on 127.0.0.1 (docs/mcp.md). The
// file returns a map of closures at its top level: tools, prompts ("prompt:NAME") and resources
// ("resource:URI"), read from the source (serve/discover.ts). Each request that runs the program
// (tools/call, prompts/get, resources/read) is one run of it (serve/call.ts), with the capabilities
// the command line gave; the handlers, one per method, are in serve/handlers.ts.
//
// Everything sent to the client passes the redactor: a call's result, its printed lines and its
// errors with the run's own (which knows every secret the run resolved), then all of it, and every
// message outside a run, with one that knows the secrets of the command line (knownSecretsRedactor).
import { knownSecretsRedactor } from '../run/host.js';
import { RunSetupError } from '../run/errors.js';
import type { Redactor } from '../effects/vault.js';
import { sweepScratch } from './serve/call.js';
import { discoverServed, ServeError, type Served, type ServedTool } from './serve/discover.js';
import { servedServer, type ServedContext } from './serve/handlers.js';
import { bearerToken, serveHttp } from './serve/http.js';
import { loadServerSdk } from './serve/sdk.js';
import { BoundedStdioTransport } from './serve/stdio-transport.js';
import { isModernOpening, OpeningTransport } from './serve/stdio-opening.js';
import type { ServeOptions, Serving } from './serve/options.js';

export { ServeError, type Served, type ServedTool };
export { discoverServed } from './serve/discover.js';
export { callProgram } from './serve/call.js';
export type { CallRequest, PerformCall } from './serve/handlers.js';
export { MIN_TOKEN_LENGTH } from './serve/http.js';
export type { ModernHandler, ServeOptions, Serving } from './serve/options.js';

/** Serves `file` over MCP. Throws ServeError or InputError before serving. */
export async function serveMcp(file: string, options: ServeOptions): Promise<Serving> {
  const discovered = await discoverServed(file);
  const served = options.offered ? options.offered(discovered) : discovered;
  let redactor: Redactor;
  try {
    redactor = await knownSecretsRedactor(options.run);
  } catch (e) {
    if (e instanceof RunSetupError) throw new ServeError(e.message);
    throw e;
  }
  if (options.tokenFile !== undefined && options.port === undefined) throw new ServeError('--token-file goes with --port (over standard input/output the client is the process that started the server)');
  const token = options.port !== undefined ? await bearerToken(options.tokenFile) : undefined;
  // the call files of a `turn mcp` that was killed (its exit handler never ran) hold its callers' arguments
  sweepScratch();
  const sdk = await loadServerSdk();
  const ctx: ServedContext = { file, served, run: options.run, redactor, ...(options.perform ? { perform: options.perform } : {}) };
  if (options.port !== undefined) return serveHttp(sdk, ctx, options, options.port, token!);
  const server = servedServer(sdk, ctx, options.version);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const parse = (v: unknown) => sdk.types.JSONRPCMessageSchema.safeParse(v) as { success: true; data: never } | { success: false };
  const transport = options.transport ?? new BoundedStdioTransport(parse, options.maxMessageBytes);
  const factory = options.modern ? (await options.modern(ctx)).factory : undefined;
  if (!factory) {
    await server.connect(transport);
    return { tools: served.tools, served, closed, close: () => server.close() };
  }
  // both revisions: the client's first message says which (serve/stdio-opening.ts); serving starts now, the choice waits for it
  const opening = new OpeningTransport(transport);
  let close = () => opening.close();
  void (async () => {
    const first = await opening.first();
    if (first !== undefined && isModernOpening(first)) {
      const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
      const handle = serveStdio(factory as never, { transport: opening, legacy: 'reject' });
      close = () => handle.close();
    } else if (first !== undefined) {
      await server.connect(opening);
      close = () => server.close();
    }
  })().catch(() => void opening.close());
  return { tools: served.tools, served, closed: opening.ended, close: () => close() };
}
