// The extension's own MCP servers for agent mode (extension/lm/agent-tools.ts says why): one per
// served workspace file, Streamable HTTP on 127.0.0.1 at a free port, through `turn mcp --port`'s
// library entry (serveMcp): its tool listing, argument validation, bounds, the bearer token every
// request must carry (32 random bytes, given only to VS Code in the server definition's headers,
// so another local process cannot call the tools) and its redaction. Each validated `tools/call`
// is performed by `runInEditor` (the run panel, in extension/lm/register.ts) instead of a run of
// the server's own. No `vscode` import: unit-tested in Node.
import { serveMcp, type RunOptions, type ServedTool } from '../../runtime/index.js';
import { callResult, offeredTools, type EditorCallOutcome } from './agent-tools.js';

/** One tool call to run in the editor. */
export interface EditorCall {
  file: string;
  tool: ServedTool;
  args: Record<string, unknown>;
  /** aborted when VS Code cancels the call: the run is stopped */
  signal: AbortSignal;
}
export type RunInEditor = (call: EditorCall) => Promise<EditorCallOutcome>;

export interface AgentServerSpec {
  file: string;
  /** shown in VS Code's server list (agent-tools.ts serverLabel) */
  label: string;
  /** the grants in words and the model, said in each tool's description (the confirmation) */
  grants: string;
  model: string;
  /** the settings' run options: serving reads the secrets they name to redact them from replies */
  run: RunOptions;
  /** the file's version (its modification time): an edited file is served afresh, its tools listed again */
  version: string;
}

export interface AgentServer {
  file: string;
  label: string;
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  /** the header VS Code sends with each request */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/** Serves `spec.file`'s tools; each call is `runInEditor`'s. Throws ServeError when the file serves nothing. */
export async function serveAgent(spec: AgentServerSpec, runInEditor: RunInEditor): Promise<AgentServer> {
  const serving = await serveMcp(spec.file, {
    run: spec.run,
    port: 0,
    offered: (served) => offeredTools(served, spec.grants, spec.model),
    perform: async ({ tool, args, setup }) => {
      const signal = setup.signal ?? new AbortController().signal;
      return callResult(await runInEditor({ file: spec.file, tool, args, signal }));
    },
  });
  return { file: spec.file, label: spec.label, url: serving.url!, headers: { Authorization: `Bearer ${serving.token!.value}` }, close: () => serving.close() };
}

/**
 * The servers of the workspace's served files, kept while their file and settings stay as they
 * were: `update` starts the new ones, keeps the unchanged, closes the rest. Updates run one after
 * another (VS Code may ask for the definitions again while an update is under way).
 */
export class AgentServers {
  private readonly servers = new Map<string, Promise<AgentServer | undefined>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly runInEditor: RunInEditor, private readonly serve: typeof serveAgent = serveAgent) {}

  /** The servers for `specs` (one whose file serves nothing, or no longer compiles, is left out). */
  update(specs: AgentServerSpec[]): Promise<AgentServer[]> {
    const next = this.queue.then(() => this.apply(specs));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async apply(specs: AgentServerSpec[]): Promise<AgentServer[]> {
    const wanted = new Map(specs.map((s) => [keyOf(s), s]));
    for (const [key, server] of this.servers) {
      if (wanted.has(key)) continue;
      this.servers.delete(key);
      void server.then((s) => s?.close()).catch(() => undefined);
    }
    for (const [key, spec] of wanted) {
      if (!this.servers.has(key)) this.servers.set(key, this.serve(spec, this.runInEditor).catch(() => undefined));
    }
    const out: AgentServer[] = [];
    for (const key of wanted.keys()) {
      const s = await this.servers.get(key);
      if (s) out.push(s);
    }
    return out;
  }

  async closeAll(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((p) => p.then((s) => s?.close()).catch(() => undefined)));
  }
}

/** A server is kept while its file (and its version), label (its grants) and model stay the same. */
function keyOf(s: AgentServerSpec): string {
  return JSON.stringify([s.file, s.version, s.label, s.grants, s.model]);
}

/**
 * Runs calls one after another: the run panel shows one run, and a new run there stops the one it
 * shows, so agent mode's parallel calls of Turn tools wait for each other instead.
 */
export function oneAtATime(run: RunInEditor): RunInEditor {
  let last: Promise<unknown> = Promise.resolve();
  return (call) => {
    const mine = last.then(() => (call.signal.aborted ? { ok: false as const, message: 'the call was cancelled before it ran' } : run(call)));
    last = mine.catch(() => undefined);
    return mine;
  };
}
