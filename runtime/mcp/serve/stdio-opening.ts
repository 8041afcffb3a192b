// `turn mcp FILE` over standard input/output on both revisions: the client's first message decides
// who serves the connection, as the 2.x SDK's stdio entry (serveStdio) decides it. A 2026-07-28
// opening — `server/discover`, or any request whose `_meta` names that revision — is served by the
// 2.x server of serve-next/modern.ts (the same factory as over HTTP) for the connection's life; any
// other opening (`initialize`) by the 1.x server, as before. The transport underneath is the
// bounded one (stdio-transport.ts) either way; OpeningTransport holds the first message until the
// chosen server is connected, then hands it over, and the rest after it, in order.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const MODERN_REVISION = '2026-07-28';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** Whether a client's first message opens a 2026-07-28 connection. */
export function isModernOpening(m: JSONRPCMessage): boolean {
  if (!('method' in m)) return false;
  if (m.method === 'server/discover') return true;
  const meta = (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[PROTOCOL_VERSION_KEY] === MODERN_REVISION;
}

export class OpeningTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** messages read before the chosen server was connected */
  private held: JSONRPCMessage[] = [];
  private live = false;
  private started = false;
  private firstSeen?: (m: JSONRPCMessage | undefined) => void;
  /** resolves when the connection ends, whoever served it */
  readonly ended: Promise<void>;

  constructor(private readonly inner: Transport) {
    let end!: () => void;
    this.ended = new Promise((resolve) => (end = resolve));
    inner.onmessage = (m) => {
      if (this.live) return this.onmessage?.(m);
      this.held.push(m);
      this.firstSeen?.(m);
      this.firstSeen = undefined;
    };
    inner.onerror = (e) => this.onerror?.(e);
    inner.onclose = () => {
      this.firstSeen?.(undefined);
      this.firstSeen = undefined;
      this.onclose?.();
      end();
    };
  }

  /** Starts reading; the client's first message (undefined when the input ends before one). */
  async first(): Promise<JSONRPCMessage | undefined> {
    const seen = new Promise<JSONRPCMessage | undefined>((resolve) => (this.firstSeen = resolve));
    await this.inner.start();
    return seen;
  }

  /** Called by the chosen server's connect: the held messages follow, in order, on the next turn. */
  start(): Promise<void> {
    if (this.started) throw new Error('the connection is already served');
    this.started = true;
    setImmediate(() => {
      // a message read meanwhile was held after the others: all go in order, then the rest live
      for (const m of this.held) this.onmessage?.(m);
      this.held = [];
      this.live = true;
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
