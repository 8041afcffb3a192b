// The MCP sessions of one run: opened on a process's first call to a server, shared by the run's
// processes, and all closed when the run ends, is suspended or is stopped (a stdio server is a
// child of the run; a resumed run opens its sessions again on first use). Notifications become
// run events: `mcp.server` (started, stopped), `mcp.progress` and `mcp.log`.
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { RunEventBody } from '../events/index.js';
import type { IdentityHandle } from '../effects/identity.js';
import type { LogMessage, McpSession, SessionAuthority } from './session.js';
import { describeServer, serverKey, type McpServerSpec } from './server.js';

export class McpSessions {
  private readonly open = new Map<string, Promise<McpSession>>();
  /** the process whose request is in flight on each session (who a log message is shown for) */
  private readonly current = new Map<string, number>();
  private emitter: ((body: RunEventBody) => void) | undefined;
  private closing = false;

  /** Run events go here once the VM exists (runtime/run wires its event log). */
  attach(emit: (body: RunEventBody) => void): void {
    this.emitter = emit;
  }

  private emit(body: RunEventBody): void {
    try {
      this.emitter?.(body);
    } catch {
      // an event sink never fails a call
    }
  }

  /** The session with `spec` (opened now if needed, under `authority`). */
  session(spec: McpServerSpec, authority: SessionAuthority, identity: IdentityHandle | undefined, pid: number): Promise<McpSession> {
    if (this.closing) return Promise.reject(new Error('the run has ended: no MCP server is started'));
    const key = serverKey(spec, identity);
    let s = this.open.get(key);
    if (!s) {
      const server = describeServer(spec);
      const onLog = (m: LogMessage) => this.emit({ kind: 'mcp.log', pid: this.current.get(key) ?? pid, server, level: m.level, logger: m.logger, data: m.data });
      // the SDK is loaded on the first MCP call, not at every start of the CLI
      s = import('./session.js').then(({ McpSession }) => McpSession.open(spec, { ...authority, pid }, identity, onLog)).then(async (session) => {
        this.emit({ kind: 'mcp.server', pid, server, state: 'started', ...(session.pid !== undefined ? { processId: session.pid } : {}) });
        await session.setLogLevel('info').catch(() => undefined);
        return session;
      });
      this.open.set(key, s);
      s.catch(() => this.open.delete(key)); // a failed start is tried again by the next call
    }
    return s;
  }

  /** Runs `f` on the session as process `pid`, with progress notifications as `mcp.progress` events. */
  async use<T>(spec: McpServerSpec, authority: SessionAuthority, identity: IdentityHandle | undefined, pid: number, tool: string | null, f: (s: McpSession, onProgress: (p: Progress) => void) => Promise<T>): Promise<T> {
    const session = await this.session(spec, authority, identity, pid);
    const key = serverKey(spec, identity);
    const server = describeServer(spec);
    this.current.set(key, pid);
    const onProgress = (p: Progress) =>
      this.emit({ kind: 'mcp.progress', pid, server, tool, progress: p.progress, total: p.total ?? null, message: typeof p.message === 'string' ? p.message : null });
    try {
      return await f(session, onProgress);
    } finally {
      if (this.current.get(key) === pid) this.current.delete(key);
    }
  }

  /** Stops every server of the run. */
  async closeAll(): Promise<void> {
    this.closing = true;
    const sessions = [...this.open.values()];
    this.open.clear();
    await Promise.all(
      sessions.map(async (p) => {
        const s = await p.catch(() => undefined);
        if (!s) return;
        await s.close();
        this.emit({ kind: 'mcp.server', pid: 0, server: describeServer(s.spec), state: 'stopped' });
      }),
    );
  }
}
