// Which revision a stdio server speaks (docs/mcp.md, "Both revisions"). Over HTTP the 2.x client
// asks `server/discover` itself (modern-client.ts); over stdio the server is Turn's own launched
// process (stdio.ts: the run's grant, bounded replies), so the question is asked here, on that
// process, before either client is given it: `server/discover` answered with a result that offers
// 2026-07-28 is a 2026-07-28 server; an error (a 2025-11-25 server: "method not found"), a result
// that does not offer it, or silence for STDIO_PROBE_TIMEOUT_MS is a 2025-11-25 one, and the same
// process is then given the 1.x client, which sends `initialize`. A server that exits on a request
// before `initialize` (some 2025-11-25 servers do) is launched again for the 1.x client.
//
// The launch map's `protocol` chooses: "2025-11-25" (the default: no question asked, since most
// stdio servers speak it and a server that ignores an unknown request would cost the wait),
// "2026-07-28" (pinned: anything but an offer fails the connection), or "auto" (asked).
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_REVISION } from './modern-client.js';
import type { LaunchedStdioTransport } from './stdio.js';

/** How long a stdio server may take to answer `server/discover` before it counts as a 2025-11-25 one that ignores it. */
export const STDIO_PROBE_TIMEOUT_MS = 5_000;
const PROBE_ID = 'turn-server-discover';

export type StdioRevision = 'modern' | 'legacy' | 'exited';

/** Whether a `server/discover` reply offers 2026-07-28 (its `supportedVersions`). */
function offersModern(m: JSONRPCMessage): boolean {
  const result = (m as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null) return false;
  const versions = (result as { supportedVersions?: unknown }).supportedVersions;
  return Array.isArray(versions) && versions.includes(MODERN_REVISION);
}

/**
 * Starts `transport`'s server and asks it `server/discover`: 'modern' (it offers 2026-07-28),
 * 'legacy' (it does not, or says nothing within `timeoutMs`), or 'exited' (it ended). The server
 * keeps running for the client it is handed to next (transport.handOver()).
 */
export async function probeStdio(transport: LaunchedStdioTransport, info: { name: string; version: string }, capabilities: Record<string, unknown>, timeoutMs = STDIO_PROBE_TIMEOUT_MS): Promise<StdioRevision> {
  await transport.start();
  const verdict = await new Promise<StdioRevision>((resolve) => {
    const done = (v: StdioRevision) => {
      clearTimeout(timer);
      transport.onmessage = undefined;
      transport.onclose = undefined;
      resolve(v);
    };
    const timer = setTimeout(() => done('legacy'), timeoutMs);
    // anything else the server says meanwhile (a log line, a notification) is not the answer
    transport.onmessage = (m) => {
      if ('id' in m && m.id === PROBE_ID && !('method' in m)) done(offersModern(m) ? 'modern' : 'legacy');
    };
    transport.onclose = () => done('exited');
    const request = {
      jsonrpc: '2.0' as const,
      id: PROBE_ID,
      method: 'server/discover',
      params: { _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION, [CLIENT_INFO_META_KEY]: info, [CLIENT_CAPABILITIES_META_KEY]: capabilities } },
    };
    transport.send(request).catch(() => done('exited'));
  });
  if (verdict !== 'exited') transport.handOver();
  return verdict;
}
