// How `turn mcp` is asked to serve (ServeOptions), and what serving gives back (Serving).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RunOptions } from '../../run/options.js';
import type * as http from 'node:http';
import type { Served, ServedTool } from './discover.js';
import type { PerformCall, ServedContext } from './handlers.js';

export interface ServeOptions {
  /** the options every call's run gets (capabilities, model, budgets) */
  run: RunOptions;
  /** default: this process's standard input and output (each message at most `maxMessageBytes`) */
  transport?: Transport;
  /** serve Streamable HTTP on 127.0.0.1 at this port (0: any free one) instead of stdio */
  port?: number;
  /**
   * HTTP: the file holding the bearer token clients must send (owner-only: mode 0600 or 0400);
   * without it a random token is made (`Serving.token`, for the operator to hand to the client)
   */
  tokenFile?: string;
  /** the most one message from the client may be (default 16 MiB); a longer one is answered with a protocol error */
  maxMessageBytes?: number;
  version?: string;
  /**
   * What clients are offered of the served file (default: all of it): the editor offers only its
   * tools, described with the grants their runs have (extension/lm/agent-tools.ts)
   */
  offered?: (served: Served) => Served;
  /** `turn mcp --store`: performs each validated `tools/call` in place of a plain run (serve-next/durable-calls.ts) */
  perform?: PerformCall;
  /**
   * HTTP: makes the handler of the 2026-07-28 revision (serve-next/modern.ts), which answers a POST
   * (its body parsed) and says so; false: a 2025-11-25 request, served here
   */
  modern?: (ctx: ServedContext) => Promise<ModernHandler>;
}

export type ModernHandler = ((req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => Promise<boolean>) & {
  /** the 2.x server factory behind it, for a 2026-07-28 connection over standard input/output (serve/stdio-opening.ts) */
  factory?: () => unknown;
};

export interface Serving {
  tools: ServedTool[];
  served: Served;
  /** the Streamable HTTP endpoint, when serving HTTP */
  url?: string;
  /** HTTP: the bearer token a client must send, and whether it was made now (else read from `tokenFile`) */
  token?: { value: string; generated: boolean };
  /** settles when the stdio client closes the connection (never, for HTTP: `close()` ends it) */
  closed: Promise<void>;
  close(): Promise<void>;
}
