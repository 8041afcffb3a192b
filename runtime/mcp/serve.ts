// `turn mcp FILE`: a Turn program's exported closures served as MCP tools over stdio (or, with
// `--port`, Streamable HTTP on 127.0.0.1). The file
// returns a map of closures at its top level (as a `*_test.tn` file returns its tests); each entry
// is a tool, its input schema made from the closure's parameter types and its output schema from
// its return type (runtime/infer/schema.ts, the schemas `infer` uses). Each `tools/call` is one
// run of the program (runtime/run), with the capabilities the command line gave.
//
// Everything sent to the client passes the redactor: a call's result, its printed lines and its
// errors with the run's own (which knows every secret the run resolved), then all of it, and every
// message outside a run, with one that knows the secrets of the command line (knownSecretsRedactor).
// Over HTTP only the operator is served: every request must carry the bearer token made (or read
// from `--token-file`) at start, checked before anything of the request's body is read.
//
// The SDK's server side and node:http are loaded when serving starts (loadServerSdk): the runtime
// is one bundle with the CLI, and loading them at every start of `turn run` cost about a third of
// its start-up (the SDK's HTTP server installs Node's fetch globals, which loads undici).
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { checkSource } from '../check/index.js';
import { formatDiagnostic } from '../diagnostics.js';
import { typeToSchema, SchemaError, type StructInfo, type TypeEnv } from '../infer/schema.js';
import { readSourceText } from '../load.js';
import { turnString } from '../absorb/module.js';
import { startRun, type Run } from '../run/run.js';
import { knownSecretsRedactor } from '../run/host.js';
import { RunSetupError } from '../run/errors.js';
import type { Redactor } from '../effects/vault.js';
import type { RunOptions } from '../run/options.js';
import type { Closure, Expr, Program, TypeExpr } from '../syntax/ast.js';

export interface ServedTool {
  /** the map's key: the MCP tool name */
  name: string;
  params: { name: string; schema: Record<string, unknown> }[];
  inputSchema: Tool['inputSchema'];
  outputSchema?: Tool['outputSchema'];
  description: string;
}

/** A file that cannot be served, with a located message. */
export class ServeError extends Error {}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function typeEnv(program: Program): TypeEnv {
  const structs = new Map<string, StructInfo>();
  const aliases = new Map<string, TypeExpr>();
  for (const s of program.body) {
    if (s.kind === 'Struct') structs.set(s.name.name, { name: s.name.name, typeParams: s.typeParams.map((p) => p.name), fields: s.fields.map((f) => ({ name: f.name.name, type: f.type })) });
    else if (s.kind === 'TypeAlias') aliases.set(s.name.name, s.type);
  }
  return { struct: (n) => structs.get(n), alias: (n) => aliases.get(n) };
}

/** A schema without the dialect marker at its root (an MCP tool's schemas are embedded objects). */
function bare(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** The tools `file` serves: the closures of the map its top level returns. Throws ServeError (located) or InputError. */
export async function discoverServedTools(file: string): Promise<ServedTool[]> {
  const text = readSourceText(file);
  const checked = await checkSource(file, text, { fetch: false });
  const error = checked.diagnostics.find((d) => d.severity === 'error');
  if (error) throw new ServeError(formatDiagnostic(checked.file, error));
  const program = checked.program;
  const where = (offset: number): string => {
    const p = checked.file.position(offset);
    return `${file}:${p.line}:${p.column}`;
  };
  const shape = 'a served file returns a map of closures at its top level: return {"tool_name": turn(x: Str) -> Str { ... }, ...};';
  const returns = program.body.filter((s) => s.kind === 'Return');
  const last = returns[returns.length - 1];
  if (!last || last.kind !== 'Return' || !last.value) throw new ServeError(`${where(program.span.end)}: nothing to serve: ${shape}`);
  if (last.value.kind !== 'Map') throw new ServeError(`${where(last.value.span.start)}: ${shape}`);
  const lets = new Map<string, Expr>();
  for (const s of program.body) if (s.kind === 'Let') lets.set(s.name.name, s.value);
  const env = typeEnv(program);
  const tools: ServedTool[] = [];
  for (const entry of last.value.entries) {
    let value = entry.value;
    if (value.kind === 'Identifier') value = lets.get(value.name) ?? value;
    if (value.kind !== 'Closure') throw new ServeError(`${where(entry.value.span.start)}: "${entry.key}" must be a closure to be served as a tool: turn(...) { ... }`);
    if (!TOOL_NAME.test(entry.key)) throw new ServeError(`${where(entry.span.start)}: "${entry.key}" is not an MCP tool name (letters, digits, _ . -, at most 128)`);
    tools.push(servedTool(entry.key, value, env, where, path.basename(file)));
  }
  if (tools.length === 0) throw new ServeError(`${where(last.value.span.start)}: the map holds no closures: ${shape}`);
  return tools;
}

function servedTool(name: string, c: Closure, env: TypeEnv, where: (offset: number) => string, fileName: string): ServedTool {
  const schema = (t: TypeExpr | undefined, at: number, what: string): Record<string, unknown> => {
    if (!t) return {};
    try {
      return bare(typeToSchema(t, env));
    } catch (e) {
      if (e instanceof SchemaError) throw new ServeError(`${where(at)}: ${what} of "${name}" cannot be described to an MCP client: ${e.message}`);
      throw e;
    }
  };
  const params = c.params.map((p) => ({ name: p.name.name, schema: schema(p.type, p.span.start, `parameter \`${p.name.name}\``) }));
  const inputSchema: Tool['inputSchema'] = { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])), required: params.map((p) => p.name) };
  const out = c.returnType ? schema(c.returnType, c.returnType.span.start, 'the return type') : undefined;
  // MCP's structuredContent is an object: a tool returning a struct or a map has an output schema
  const outputSchema = out && out.type === 'object' ? (out as Tool['outputSchema']) : undefined;
  return { name, params, inputSchema, ...(outputSchema ? { outputSchema } : {}), description: `${name} from ${fileName} (a Turn program; each call is a run)` };
}

let scratch: string | undefined;
let counter = 0;
function scratchDir(): string {
  if (scratch === undefined) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-'));
    const dir = scratch;
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

/** The program one call runs: it `use`s the served file and calls the tool with the arguments, parsed from JSON. */
function callProgram(file: string, tool: ServedTool, args: Record<string, unknown>): string {
  const program = path.join(scratchDir(), `call-${++counter}.tn`);
  const values = tool.params.map((p) => `call("json_parse", ${turnString(JSON.stringify(args[p.name] ?? null))})`);
  fs.writeFileSync(program, `let tools = use ${turnString(path.resolve(file))};\nreturn tools[${turnString(tool.name)}](${values.join(', ')});\n`);
  return program;
}

const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** Performs one `tools/call`: a run of the program. `onLine`: each line it prints, as it prints it (sent as an MCP log message). */
export async function callServedTool(file: string, tool: ServedTool, args: Record<string, unknown>, options: RunOptions, onLine?: (line: string) => void): Promise<CallToolResult> {
  const missing = tool.params.filter((p) => args[p.name] === undefined).map((p) => p.name);
  if (missing.length > 0) return failure(`${tool.name} needs ${missing.map((m) => `"${m}"`).join(', ')}`);
  const output: string[] = [];
  let run;
  try {
    // standard input is the MCP connection: nobody can be asked, so an effect that needs approval is denied unless --approve all
    const authority = { ...options.authority, approve: options.authority?.approve ?? 'none' };
    // nor is a server's question (elicitation) asked on it: only --answer or the refusal answer it
    run = await startRun({ ...options, askOnTerminal: false, authority, file: callProgram(file, tool, args), onOutput: (line) => {
        output.push(line);
        onLine?.(line);
      },
    });
  } catch (e) {
    if (e instanceof RunSetupError) {
      const d = e.diagnostics.find((x) => x.diagnostic.severity === 'error');
      return failure(d ? formatDiagnostic(d.file, d.diagnostic) : e.message);
    }
    throw e;
  }
  const r = await run.start();
  // the program's value may hold a secret it rebuilt (pieces joined): redacted like its printed lines
  return run.redactDeep(reply(r, output, tool));
}

/** What the client is sent for a run's outcome (not yet redacted). */
function reply(r: Awaited<ReturnType<Run['start']>>, output: string[], tool: ServedTool): CallToolResult {
  const printed = output.length > 0 ? [{ type: 'text' as const, text: output.join('\n') }] : [];
  switch (r.kind) {
    case 'done': {
      const text = typeof r.json === 'string' ? r.json : JSON.stringify(r.json ?? null);
      const structured = tool.outputSchema && r.json && typeof r.json === 'object' && !Array.isArray(r.json) ? { structuredContent: r.json as Record<string, unknown> } : {};
      return { content: [{ type: 'text', text }, ...printed], ...structured };
    }
    case 'failed':
      return { isError: true, content: [{ type: 'text', text: `${r.error.message}` }, ...printed] };
    case 'suspended':
      return failure(`the run suspended (run ${r.runId}); resume it with turn resume ${r.runId}`);
    case 'waiting':
      return failure(`the run waits for a decision about an unknown outcome (run ${r.runId}); settle it with turn resolve`);
    case 'stopped':
      return failure(`the run was stopped: ${r.reason}`);
    case 'aborted':
      return failure(`the run was aborted: ${r.message}`);
  }
}

export interface ServeOptions {
  /** the options every call's run gets (capabilities, model, budgets) */
  run: RunOptions;
  /** default: this process's standard input and output */
  transport?: Transport;
  /** serve Streamable HTTP on 127.0.0.1 at this port (0: any free one) instead of stdio */
  port?: number;
  /**
   * HTTP: the file holding the bearer token clients must send (owner-only: mode 0600 or 0400);
   * without it a random token is made (`Serving.token`, for the operator to hand to the client)
   */
  tokenFile?: string;
  version?: string;
}

/** The parts of the MCP SDK (and of Node) that serving uses, loaded on the first serve. */
async function loadServerSdk() {
  const [server, stdio, streamable, types, http, crypto] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('node:http'),
    import('node:crypto'),
  ]);
  return {
    Server: server.Server,
    StdioServerTransport: stdio.StdioServerTransport,
    StreamableHTTPServerTransport: streamable.StreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    isInitializeRequest: types.isInitializeRequest,
    createServer: http.createServer,
    randomUUID: crypto.randomUUID,
  };
}
type ServerSdk = Awaited<ReturnType<typeof loadServerSdk>>;
type Server = InstanceType<ServerSdk['Server']>;
type StreamableHTTPServerTransport = InstanceType<ServerSdk['StreamableHTTPServerTransport']>;

/** One MCP server (the SDK's) answering `tools/list` and `tools/call` for `tools`; everything it sends has passed `redactor`. */
function toolServer(sdk: ServerSdk, file: string, tools: ServedTool[], options: ServeOptions, redactor: Redactor): Server {
  const { Server, ListToolsRequestSchema, CallToolRequestSchema } = sdk;
  const byName = new Map(tools.map((t) => [t.name, t]));
  // logging: what a call's run prints is sent to the client as log messages as it is printed
  const server = new Server({ name: `turn:${path.basename(file)}`, version: options.version ?? '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}) })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) return redactor.redactDeep(failure(`no tool "${request.params.name}" (tools: ${tools.map((t) => t.name).join(', ')})`));
    const log = (line: string): void => {
      void extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: tool.name, data: redactor.redact(line) } }).catch(() => undefined);
    };
    try {
      return redactor.redactDeep(await callServedTool(file, tool, request.params.arguments ?? {}, options.run, log));
    } catch (e) {
      // not a failure of the program (those are replies): a message, never a stack, and redacted
      return failure(redactor.redact(`${tool.name} failed: ${e instanceof Error ? e.message : String(e)}`));
    }
  });
  return server;
}

export interface Serving {
  tools: ServedTool[];
  /** the Streamable HTTP endpoint, when serving HTTP */
  url?: string;
  /** HTTP: the bearer token a client must send, and whether it was made now (else read from `tokenFile`) */
  token?: { value: string; generated: boolean };
  /** settles when the stdio client closes the connection (never, for HTTP: `close()` ends it) */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves `file`'s closures over MCP. Throws ServeError or InputError before serving. */
export async function serveMcp(file: string, options: ServeOptions): Promise<Serving> {
  const tools = await discoverServedTools(file);
  let redactor: Redactor;
  try {
    redactor = await knownSecretsRedactor(options.run);
  } catch (e) {
    if (e instanceof RunSetupError) throw new ServeError(e.message);
    throw e;
  }
  if (options.tokenFile !== undefined && options.port === undefined) throw new ServeError('--token-file goes with --port (over standard input/output the client is the process that started the server)');
  const token = options.port !== undefined ? await bearerToken(options.tokenFile) : undefined;
  const sdk = await loadServerSdk();
  if (options.port !== undefined) return serveHttp(sdk, file, tools, options, options.port, redactor, token!);
  const server = toolServer(sdk, file, tools, options, redactor);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(options.transport ?? new sdk.StdioServerTransport());
  return { tools, closed, close: () => server.close() };
}

/** The shortest token `--token-file` may hold (the one made at start has 43 characters: 32 random bytes, base64url). */
export const MIN_TOKEN_LENGTH = 32;

/** The token clients must send: read from `tokenFile` (owner-only, long enough), or 32 random bytes. Throws ServeError. */
async function bearerToken(tokenFile: string | undefined): Promise<{ value: string; generated: boolean }> {
  const crypto = await import('node:crypto');
  if (tokenFile === undefined) return { value: crypto.randomBytes(32).toString('base64url'), generated: true };
  let stat: fs.Stats;
  let text: string;
  try {
    stat = fs.statSync(tokenFile);
    text = fs.readFileSync(tokenFile, 'utf8');
  } catch (e) {
    throw new ServeError(`cannot read the token file ${tokenFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
    throw new ServeError(`the token file ${tokenFile} is accessible to other users (mode ${mode}); refusing to use it. Run: chmod 600 ${tokenFile}`);
  }
  const value = text.trim();
  if (value.length < MIN_TOKEN_LENGTH || /\s/.test(value)) {
    throw new ServeError(`the token file ${tokenFile} must hold one token of at least ${MIN_TOKEN_LENGTH} characters, without spaces (e.g. openssl rand -base64 32)`);
  }
  return { value, generated: false };
}

/**
 * Whether a request carries `Authorization: Bearer <token>`. The comparison takes the same time
 * whatever the header holds: both sides are hashed to 32 bytes and compared with timingSafeEqual.
 */
function authorized(req: http.IncomingMessage, expected: Buffer, crypto: typeof import('node:crypto')): boolean {
  const header = req.headers.authorization;
  const given = typeof header === 'string' && /^Bearer /i.test(header) ? header.slice(7).trim() : '';
  const digest = crypto.createHash('sha256').update(given).digest();
  return crypto.timingSafeEqual(digest, expected);
}

/** How long the connection of a refused request stays open, unread, after the answer (`refuse`). */
const REFUSED_LINGER_MS = 2000;

/**
 * Answers a request without the token: 401 `WWW-Authenticate: Bearer`, written on the socket
 * itself. Through the ServerResponse, Node would read the rest of the body to discard it (to keep
 * the connection alive) or close the connection at once, which makes a client still sending its
 * body fail with EPIPE before it reads the answer. Here nothing more is read (the unread request
 * stops the socket once its buffer is full), the answer is followed by the end of our side, and the
 * connection is dropped a little later, the client having had time to read why.
 */
function refuse(req: http.IncomingMessage): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'unauthorized: send Authorization: Bearer <the token turn mcp printed, or the one in --token-file>' }, id: null });
  const head = ['HTTP/1.1 401 Unauthorized', 'WWW-Authenticate: Bearer realm="turn mcp"', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  const socket = req.socket;
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}

/** Streamable HTTP on 127.0.0.1 (a session per client, DNS rebinding protection on, the operator's token required). */
async function serveHttp(sdk: ServerSdk, file: string, tools: ServedTool[], options: ServeOptions, port: number, redactor: Redactor, token: { value: string; generated: boolean }): Promise<Serving> {
  const { StreamableHTTPServerTransport, isInitializeRequest, randomUUID } = sdk;
  const crypto = await import('node:crypto');
  const expected = crypto.createHash('sha256').update(token.value).digest();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  const reply = (res: http.ServerResponse, status: number, message: string): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };
  const serveRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (!authorized(req, expected, crypto)) return refuse(req);
    void (async () => {
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return reply(res, 404, 'the MCP endpoint is /mcp');
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (req.method !== 'POST') {
        if (!known) return reply(res, 400, 'invalid or missing session id');
        return known.handleRequest(req, res);
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' }, id: null }));
      }
      if (known) return known.handleRequest(req, res, body);
      if (typeof id === 'string') return reply(res, 404, 'no such session');
      if (!isInitializeRequest(body)) return reply(res, 400, 'a session starts with initialize');
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        enableDnsRebindingProtection: true,
        allowedHosts,
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await toolServer(sdk, file, tools, options, redactor).connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  };
  const httpServer = sdk.createServer(serveRequest);
  // a client that asks before sending its body (`Expect: 100-continue`) is told to go on only with the token
  httpServer.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!authorized(req, expected, crypto)) return refuse(req);
    res.writeContinue();
    serveRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (httpServer.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    })());
  return { tools, url: `http://127.0.0.1:${bound}/mcp`, token, closed: new Promise(() => {}), close };
}
