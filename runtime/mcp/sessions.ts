// The MCP sessions of one run: opened on a process's first call to a server, shared by the run's
// processes, and all closed when the run ends, is suspended or is stopped (a stdio server is a
// child of the run; a resumed run opens its sessions again on first use). A server whose
// connection ends on its own (it exited or crashed) is started again by the next call, at most
// MAX_RESTARTS times per run; the call in flight when it ended fails with the reason. Notifications
// become run events: `mcp.server` (started, stopped), `mcp.progress` and `mcp.log`, their texts
// clipped and their number held to a rate (notices.ts).
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { RunEventBody } from '../events/index.js';
import type { IdentityHandle } from '../effects/identity.js';
import { NoticeBucket, clipData, clipText } from './notices.js';
import type { LogMessage, McpSession, SessionAuthority } from './session.js';
import { McpError, describeServer, serverKey, type McpServerSpec } from './server.js';

/** How many times one server is started again in a run after its connection ended on its own. */
export const MAX_RESTARTS = 3;

export class McpSessions {
  private readonly open = new Map<string, Promise<McpSession>>();
  /** the sessions of `open` that have connected, to see synchronously whether one has ended */
  private readonly ready = new Map<string, McpSession>();
  /** per server: how many times it was started again */
  private readonly restarts = new Map<string, number>();
  /** per server: the token bucket its notifications pass */
  private readonly buckets = new Map<string, NoticeBucket>();
  /** the process whose request is in flight on each session (who a log message is shown for) */
  private readonly current = new Map<string, number>();
  private emitter: ((body: RunEventBody) => void) | undefined;
  private closing = false;

  /** `bucket` makes the token bucket of a server's notifications (tests give a small one). */
  constructor(private readonly bucket: () => NoticeBucket = () => new NoticeBucket()) {}

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

  /** Whether one more notification of the server `key` goes into the events; how many were held back before it. */
  private admit(key: string): { pass: true; dropped: number } | { pass: false } {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = this.bucket()));
    return b.take();
  }

  /** The session with `spec` (opened now if needed, under `authority`; started again if its server ended). */
  session(spec: McpServerSpec, authority: SessionAuthority, identity: IdentityHandle | undefined, pid: number): Promise<McpSession> {
    if (this.closing) return Promise.reject(new Error('the run has ended: no MCP server is started'));
    const key = serverKey(spec, identity);
    const server = describeServer(spec);
    if (this.ready.get(key)?.ended) {
      // checked and replaced synchronously, so two processes calling at once start it only once
      this.ready.delete(key);
      this.open.delete(key);
      this.restarts.set(key, (this.restarts.get(key) ?? 0) + 1);
    }
    const restarts = this.restarts.get(key) ?? 0;
    if (restarts > MAX_RESTARTS) {
      return Promise.reject(new McpError(`the MCP server ${server} stopped ${restarts} times in this run and was started again ${MAX_RESTARTS} times, the most it is: not started again`));
    }
    let s = this.open.get(key);
    if (!s) {
      const onLog = (m: LogMessage) => {
        const admitted = this.admit(key);
        if (!admitted.pass) return;
        this.emit({
          kind: 'mcp.log',
          pid: this.current.get(key) ?? pid,
          server,
          level: clipText(m.level),
          logger: m.logger === null ? null : clipText(m.logger),
          data: clipData(m.data),
          ...(admitted.dropped > 0 ? { dropped: admitted.dropped } : {}),
        });
      };
      const onEnded = () => this.emit({ kind: 'mcp.server', pid: this.current.get(key) ?? pid, server, state: 'stopped' });
      // the SDK is loaded on the first MCP call, not at every start of the CLI
      s = import('./session.js').then(({ McpSession }) => McpSession.open(spec, { ...authority, pid }, identity, onLog, onEnded)).then(async (session) => {
        this.emit({ kind: 'mcp.server', pid, server, state: 'started', ...(session.pid !== undefined ? { processId: session.pid } : {}) });
        this.ready.set(key, session);
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
    const onProgress = (p: Progress) => {
      const admitted = this.admit(key);
      if (!admitted.pass) return;
      this.emit({
        kind: 'mcp.progress',
        pid,
        server,
        tool,
        progress: p.progress,
        total: p.total ?? null,
        message: typeof p.message === 'string' ? clipText(p.message) : null,
        ...(admitted.dropped > 0 ? { dropped: admitted.dropped } : {}),
      });
    };
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
    this.ready.clear();
    await Promise.all(
      sessions.map(async (p) => {
        const s = await p.catch(() => undefined);
        if (!s) return;
        const ended = s.ended; // an ended server's stop was told when it ended
        await s.close();
        if (!ended) this.emit({ kind: 'mcp.server', pid: 0, server: describeServer(s.spec), state: 'stopped' });
      }),
    );
  }
}
