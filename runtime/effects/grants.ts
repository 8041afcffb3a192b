// Which grant allows an effect, for its journal entry (issue 26, point 6). Asked before the effect
// runs (its intent is journaled first), with the same `check` the effect itself performs, so the
// entry names the host pattern, file root, variable pattern, command or model budget that matched,
// where that grant came from, and the identity the program granted, if the effect uses one.
import * as path from 'node:path';
import type { EffectGrant, ToolRequest } from '../ports/host.js';
import { check, type Capabilities, type Effect } from './capabilities.js';
import { describeIdentity, isHandle, looksLikeHandle } from './identity.js';
import { STD_TOOLS } from './tools.js';

/** Who set the run's capabilities: `turn run`'s flags, or the editor's `turn.run.*` settings. */
export type GrantOrigin = 'flags' | 'settings';

type Source = 'network' | 'read' | 'write' | 'env' | 'run' | 'model';
const SOURCES: Record<GrantOrigin, Record<Source, string>> = {
  flags: { network: '--allow-net', read: '--allow-read', write: '--allow-write', env: '--allow-env', run: '--allow-run', model: '--max-model-calls' },
  settings: { network: 'turn.run.allowNet', read: 'turn.run.allowRead', write: 'turn.run.allowWrite', env: 'turn.run.allowEnv', run: 'turn.run.allowRun', model: 'turn.run.maxModelCalls' },
};

export interface GrantContext {
  capabilities: Capabilities;
  origin: GrantOrigin;
  cwd: string;
  /** the host opened the knowledge store for the run (`allowKnowledge`) */
  knowledgeGranted?: boolean;
  /** the knowledge store's folder, when known */
  knowledgeDir?: string;
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** The grant a credential argument came from, when it is a handle the host minted (never by shape). */
function identityOf(x: unknown): string | undefined {
  return isHandle(x) ? describeIdentity(x) : undefined;
}

function granted(ctx: GrantContext, capabilities: Capabilities, effect: Effect, source: Source, narrowed: boolean): EffectGrant | undefined {
  const v = check(capabilities, effect);
  if (!v.ok) return undefined;
  return { capability: effect.kind, scope: v.scope, from: SOURCES[ctx.origin][source] + (narrowed ? ', narrowed by the call' : '') };
}

function url(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

/** The grant of one model call (`infer`). */
export function modelGrant(ctx: GrantContext): EffectGrant | undefined {
  const v = check(ctx.capabilities, { kind: 'model' });
  if (!v.ok) return undefined;
  const m = ctx.capabilities.model;
  const budgeted = m?.calls !== undefined || m?.tokens !== undefined;
  return { capability: 'model', scope: v.scope, from: budgeted ? SOURCES[ctx.origin].model : 'every run' };
}

/** The grant of one effect tool call, or undefined when none allows it (the tool will refuse it). */
export function toolGrant(ctx: GrantContext, request: ToolRequest): EffectGrant | undefined {
  const tool = STD_TOOLS[request.name];
  if (!tool?.effect) return undefined;
  const a = request.args;
  // a map shaped like a handle in the credential position: the tool refuses it, so no grant allows it
  if (tool.credential === 0 && looksLikeHandle(a[0])) return undefined;
  switch (tool.category) {
    case 'clock':
    case 'random':
      return { capability: tool.category, scope: tool.category === 'clock' ? 'the clock' : 'random numbers', from: 'every run' };
    case 'env':
      return typeof a[0] === 'string' ? granted(ctx, ctx.capabilities, { kind: 'env', name: a[0] }, 'env', false) : undefined;
    case 'network': {
      if (request.name === 'http_request') {
        const target = url(a[2]);
        if (target === undefined) return undefined;
        const identity = identityOf(a[0]);
        const g = granted(ctx, ctx.capabilities, { kind: 'network', url: target }, 'network', a[0] !== null && a[0] !== undefined && identity === undefined);
        return g && identity ? { ...g, identity } : g;
      }
      const target = request.name === 'http_get' ? url(a[0]) : isObj(a[0]) ? url(a[0].url) : undefined;
      return target === undefined ? undefined : granted(ctx, ctx.capabilities, { kind: 'network', url: target }, 'network', false);
    }
    case 'files': {
      const v1 = a.length === 1 && isObj(a[0]) ? a[0] : undefined;
      const p = v1 ? v1.path : a[1];
      if (typeof p !== 'string') return undefined;
      const mode = request.name === 'fs_write' || request.name === 'fs_append' ? 'write' : 'read';
      const cap = v1 ? null : a[0];
      const narrowed = cap !== null && cap !== undefined && identityOf(cap) === undefined;
      const g = granted(ctx, ctx.capabilities, { kind: 'files', path: path.resolve(ctx.cwd, p), mode }, mode, narrowed);
      const identity = identityOf(cap);
      return g && identity ? { ...g, identity } : g;
    }
    case 'caller':
      return { capability: 'caller', scope: 'the MCP client of turn mcp', from: 'turn mcp' };
    case 'knowledge': {
      if (ctx.knowledgeGranted) return { capability: 'knowledge', scope: 'the knowledge store', from: 'the host (allowKnowledge)' };
      if (ctx.knowledgeDir === undefined) return undefined;
      const g = granted(ctx, ctx.capabilities, { kind: 'files', path: path.resolve(ctx.cwd, ctx.knowledgeDir), mode: 'write' }, 'write', false);
      return g && { ...g, capability: 'knowledge' };
    }
    case 'mcp': {
      const server = a[1];
      const identity = identityOf(a[0]);
      let g: EffectGrant | undefined;
      if (typeof server === 'string') g = granted(ctx, ctx.capabilities, { kind: 'network', url: server, method: 'POST' }, 'network', false);
      else if (isObj(server) && typeof server.command === 'string') {
        const args = Array.isArray(server.args) && server.args.every((x) => typeof x === 'string') ? server.args : [];
        g = granted(ctx, ctx.capabilities, { kind: 'run', command: server.command, args }, 'run', false);
      }
      return g && identity ? { ...g, identity } : g;
    }
  }
}

/** One line for a person: `network 127.0.0.1:* (--allow-net) with identity::bearer("svc")`. */
export function describeGrant(g: EffectGrant): string {
  return `${g.capability} ${g.scope} (${g.from})${g.identity ? ` with ${g.identity}` : ''}`;
}
