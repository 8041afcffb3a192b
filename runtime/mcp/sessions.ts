// The MCP sessions of one run: opened on a process's first call to a server, shared by the run's
// processes, and all closed when the run ends, is suspended or is stopped (a stdio server is a
// child of the run; a resumed run opens its sessions again on first use). A server whose
// connection ends on its own (it exited or crashed) is started again by the next call, at most
// MAX_RESTARTS times per run; the call in flight when it ended fails with the reason. Notifications
// become run events: `mcp.server` (started, stopped), `mcp.progress` and `mcp.log`, their texts
// clipped and their number held to a rate (notices.ts).
//
// What a server asks the client goes to the run (`serve`): roots, sampling, and elicitation,
// whose every question and outcome is an `mcp.elicitation` event (the editor shows a pending one).
// In a durable run a question nobody can answer now stops the call that met it: the server is told
// `cancel`, and the call fails with NeedsAnswer, a refusal before sending (runtime/ports/refusal.ts),
// so the run waits and `turn resume --answer` runs the step again. Subscribed resources' updates
// are `mcp.resource` events, kept (at most UPDATES_KEPT per server) for `mcp_updates` to take.
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { markRefusedBeforeSending } from '../ports/refusal.js';
import { NeedsAnswer, checkContent, formFields, type ElicitationAnswer, type ElicitationQuestion } from './elicitation.js';
import type { Sampler } from './sampling.js';
import type { RunEventBody } from '../events/index.js';
import type { IdentityHandle } from '../effects/identity.js';
import { NoticeBucket, clipData, clipText } from './notices.js';
import type { LogMessage, McpSession, ServerRequests, SessionAuthority } from './session.js';
import { McpError, describeServer, serverKey, type McpServerSpec } from './server.js';

/** How many times one server is started again in a run after its connection ended on its own. */
export const MAX_RESTARTS = 3;
/** The most resource updates kept per server until `mcp_updates` takes them (the oldest go first). */
export const UPDATES_KEPT = 1024;
/** The most sampling requests one server may make in a run: each is a model call the run pays for, budgets or not. */
export const SAMPLES_PER_SERVER = 100;
/** The most distinct unanswered questions one call carries into its NeedsAnswer (a server asking again and again adds nothing). */
export const QUESTIONS_PER_CALL = 8;

/** The most characters of a form's schema a waiting question's event carries (the editor shows the form from it). */
export const FORM_SCHEMA_MAX = 64 * 1024;

/** A waiting question's form for its event: the schema whole when its JSON is at most FORM_SCHEMA_MAX, else null. */
function formSchema(q: ElicitationQuestion): unknown {
  if (!q.requestedSchema) return null;
  const json = JSON.stringify(q.requestedSchema); // its depth was bounded by questionOf
  return json.length <= FORM_SCHEMA_MAX ? q.requestedSchema : null;
}

/** Stops the time limit of an effect while `f` (a question to a person) runs (runtime/run/host.ts's `timed`). */
export type ClockHold = <T>(f: () => Promise<T>) => Promise<T>;

interface InFlight {
  asked: ElicitationQuestion[];
  hold?: ClockHold;
}

/** Who answers, for this run, what its servers ask (runtime/run/host.ts). */
export interface RunRequests {
  /** the folders the run may read (`roots/list`) */
  roots(): { uri: string; name: string }[];
  /** the run's model; undefined: the run has none (sampling is refused) */
  sample?: Sampler;
  /** the operator, in the order elicitation.ts gives; `by` says who answered; undefined: nobody can now */
  elicit(q: ElicitationQuestion, signal?: AbortSignal): Promise<{ answer: ElicitationAnswer; by: string } | undefined>;
  /** a durable run: a question nobody can answer now makes the run wait */
  durable(): boolean;
}

export class McpSessions {
  private readonly open = new Map<string, Promise<McpSession>>();
  /** the sessions of `open` that have connected, to see synchronously whether one has ended */
  private readonly ready = new Map<string, McpSession>();
  /** per server: how many times it was started again */
  private readonly restarts = new Map<string, number>();
  /** per server: the token bucket its notifications pass */
  private readonly buckets = new Map<string, NoticeBucket>();
  /** per server key: the server as events name it */
  private readonly bucketServers = new Map<string, string>();
  /** the process whose request is in flight on each session (who a log message is shown for) */
  private readonly current = new Map<string, number>();
  /** per server: the calls in flight, each with the questions it met that nobody could answer, and its clock's hold */
  private readonly calls = new Map<string, Set<InFlight>>();
  /** per server: the sampling requests it made in this run */
  private readonly samples = new Map<string, number>();
  /** per server: updated resources not yet taken by `mcp_updates` */
  private readonly updated = new Map<string, string[]>();
  private emitter: ((body: RunEventBody) => void) | undefined;
  private requests: RunRequests | undefined;
  private closing = false;

  /** `bucket` makes the token bucket of a server's notifications (tests give a small one). */
  constructor(private readonly bucket: () => NoticeBucket = () => new NoticeBucket()) {}

  /** Run events go here once the VM exists (runtime/run wires its event log). */
  attach(emit: (body: RunEventBody) => void): void {
    this.emitter = emit;
  }

  /** The run answers its servers' requests from now on (sessions opened before keep declining). */
  serve(requests: RunRequests): void {
    this.requests = requests;
  }

  /** The resources of the server `key` updated since the last call (and forgets them). */
  takeUpdates(spec: McpServerSpec, identity: IdentityHandle | undefined): string[] {
    const key = serverKey(spec, identity);
    const out = this.updated.get(key) ?? [];
    this.updated.delete(key);
    return out;
  }

  /** What the sessions with the server `key` answer when it asks (as process `pid`, or the one in flight). */
  private requestsFor(key: string, server: string, pid: number): ServerRequests {
    const who = () => this.current.get(key) ?? pid;
    return {
      roots: () => this.requests?.roots() ?? [],
      ...(this.requests?.sample
        ? {
            sample: async (ask, signal) => {
              const sample = this.requests!.sample!;
              const n = (this.samples.get(key) ?? 0) + 1;
              this.samples.set(key, n);
              try {
                if (n > SAMPLES_PER_SERVER) throw new McpError(`the MCP server ${server} asked for more than ${SAMPLES_PER_SERVER} samples in this run, the most one server may: refused`);
                const reply = await sample({ ...ask, pid: who() }, signal);
                this.emit({ kind: 'mcp.sampling', pid: who(), server, outcome: 'answered', model: clipText(reply.model) });
                return reply;
              } catch (e) {
                this.emit({ kind: 'mcp.sampling', pid: who(), server, outcome: 'refused', model: null, message: clipText((e as Error).message) });
                throw e;
              }
            },
          }
        : {}),
      elicit: async (q, signal) => {
        const base = { kind: 'mcp.elicitation' as const, pid: who(), server, key: q.key, mode: q.mode, message: clipText(q.message), ...(q.url !== undefined ? { url: clipText(q.url) } : {}), fields: formFields(q).map((f) => clipText(f.name)).slice(0, 64) };
        let given: { answer: ElicitationAnswer; by: string } | undefined;
        let problem: string | undefined;
        try {
          // a person may be asked: the time limits of the run's calls waiting on this server stop meanwhile
          const ask = () => this.requests?.elicit(q, signal) ?? Promise.resolve(undefined);
          const held = [...(this.calls.get(key) ?? [])].reduce<() => Promise<{ answer: ElicitationAnswer; by: string } | undefined>>((g, c) => (c.hold ? () => c.hold!(g) : g), ask);
          given = await held();
          if (given && given.answer.action === 'accept' && q.mode === 'form') given = { ...given, answer: { action: 'accept', content: checkContent(q, given.answer.content) } };
        } catch (e) {
          if (signal?.aborted) throw e;
          problem = clipText((e as Error).message); // an answer that does not fit the question is no answer
          given = undefined;
        }
        // a server asking question after question floods nothing: its events pass the notices' bucket
        const admitted = this.admit(key, server);
        const shown = admitted.pass ? (admitted.dropped > 0 ? { dropped: admitted.dropped } : {}) : undefined;
        if (given) {
          if (shown) this.emit({ ...base, ...shown, state: 'answered', action: given.answer.action, by: given.by });
          return given.answer;
        }
        if (this.requests?.durable()) {
          for (const { asked } of this.calls.get(key) ?? []) if (asked.length < QUESTIONS_PER_CALL && !asked.some((a) => a.key === q.key)) asked.push(q);
          if (shown) this.emit({ ...base, ...shown, state: 'waiting', action: 'cancel', by: problem ?? 'nobody yet: the run waits for turn resume --answer', schema: formSchema(q) });
          return { action: 'cancel' };
        }
        if (shown) this.emit({ ...base, ...shown, state: 'refused', action: 'decline', by: problem ?? 'nobody: no terminal to ask on and no answer given (--answer KEY=ANSWER)' });
        return { action: 'decline' };
      },
    };
  }

  private emit(body: RunEventBody): void {
    try {
      this.emitter?.(body);
    } catch {
      // an event sink never fails a call
    }
  }

  /** Whether one more notification of the server `key` goes into the events; how many were held back before it. */
  private admit(key: string, server: string): { pass: true; dropped: number } | { pass: false } {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = this.bucket()));
    this.bucketServers.set(key, server);
    return b.take();
  }

  /**
   * Says how many notifications of each server were held back since the last one that passed:
   * those are counted by the next event that passes, and after a flood's last one there is none.
   */
  private countHeldBack(): void {
    for (const [key, b] of this.buckets) {
      const dropped = b.flush();
      if (dropped > 0) this.emit({ kind: 'mcp.held', pid: 0, server: this.bucketServers.get(key) ?? key, dropped });
    }
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
        const admitted = this.admit(key, server);
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
      const onResourceUpdated = (uri: string) => {
        const list = this.updated.get(key) ?? [];
        if (!list.includes(uri)) list.push(clipText(uri));
        if (list.length > UPDATES_KEPT) list.shift();
        this.updated.set(key, list);
        const admitted = this.admit(key, server);
        if (admitted.pass) this.emit({ kind: 'mcp.resource', pid: this.current.get(key) ?? pid, server, uri: clipText(uri), ...(admitted.dropped > 0 ? { dropped: admitted.dropped } : {}) });
      };
      const hooks = { onLog, onEnded, onResourceUpdated, requests: this.requestsFor(key, server, pid) };
      // the SDK is loaded on the first MCP call, not at every start of the CLI
      s = import('./session.js').then(({ McpSession }) => McpSession.open(spec, { ...authority, pid }, identity, hooks)).then(async (session) => {
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
  /** `hold`: stops the effect's own time limit while a person answers a question the call waits on. */
  async use<T>(spec: McpServerSpec, authority: SessionAuthority, identity: IdentityHandle | undefined, pid: number, tool: string | null, f: (s: McpSession, onProgress: (p: Progress) => void) => Promise<T>, hold?: ClockHold): Promise<T> {
    const session = await this.session(spec, authority, identity, pid);
    const key = serverKey(spec, identity);
    const server = describeServer(spec);
    this.current.set(key, pid);
    const onProgress = (p: Progress) => {
      const admitted = this.admit(key, server);
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
    const unanswered: ElicitationQuestion[] = [];
    const call: InFlight = { asked: unanswered, ...(hold ? { hold } : {}) };
    let calls = this.calls.get(key);
    if (!calls) this.calls.set(key, (calls = new Set()));
    calls.add(call);
    try {
      const result = await f(session, onProgress);
      if (unanswered.length > 0) throw markRefusedBeforeSending(new NeedsAnswer(unanswered));
      return result;
    } catch (e) {
      // the call failed after meeting a question nobody could answer: it waits for the answer
      if (unanswered.length > 0 && !(e instanceof NeedsAnswer)) throw markRefusedBeforeSending(new NeedsAnswer(unanswered));
      throw e;
    } finally {
      calls.delete(call);
      if (this.current.get(key) === pid) this.current.delete(key);
    }
  }

  /** Stops every server of the run. */
  async closeAll(): Promise<void> {
    this.closing = true;
    // before the first await: the run closes its trace right after calling this
    this.countHeldBack();
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
