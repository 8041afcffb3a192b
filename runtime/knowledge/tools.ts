// The host tools behind std/knowledge (`call("kb_put", ...)`): effect tools, so a durable run
// journals them and a replay returns the recorded results instead of writing twice.
// Each takes plain values (maps as objects) and returns plain values. See docs/knowledge.md.
import { KnowledgeError } from './errors.js';
import type { KnowledgeSession, Kind } from './store.js';

/**
 * The part of the effect tools' context (EffectToolContext in runtime/effects/tools.ts, which
 * registers these tools) that they use. Declared here, not imported, so that the two modules do
 * not import each other.
 */
export interface KnowledgeToolContext {
  /**
   * The run's view of the knowledge store; opened on first use. `dir`: the store's folder, which
   * the run must be granted write access to (checked by runtime/effects/tools.ts before each call).
   */
  knowledge?: (() => KnowledgeSession) & { readonly dir?: string };
}

function session(ctx: KnowledgeToolContext, tool: string): KnowledgeSession {
  if (!ctx.knowledge) throw new KnowledgeError(`${tool}: this host has no knowledge store`);
  return ctx.knowledge();
}

function map(tool: string, v: unknown, what = 'argument'): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new KnowledgeError(`${tool}: the ${what} must be a Map`);
  return v as Record<string, unknown>;
}

const FIND_KEYS = new Set(['kind', 'name', 'text', 'fields', 'cites', 'status', 'stale', 'mine', 'limit']);
const REVISE_KEYS = new Set(['text', 'fields', 'cites', 'note']);

function only(tool: string, m: Record<string, unknown>, allowed: Set<string>): void {
  for (const k of Object.keys(m)) {
    if (!allowed.has(k)) throw new KnowledgeError(`${tool}: unknown key "${k}" (allowed: ${[...allowed].join(', ')})`);
  }
}

type Run = (ctx: KnowledgeToolContext, ...args: unknown[]) => unknown;

export const KNOWLEDGE_TOOLS: Record<string, Run> = {
  /** kb_put(kind, {name?, text?, fields?, cites?}) → object */
  kb_put: (ctx, kind, spec) => {
    const s = map('kb_put', spec, 'spec');
    only('kb_put', s, new Set(['name', 'text', 'fields', 'cites']));
    return session(ctx, 'kb_put').put({ kind: kind as Kind, name: s.name as string, text: s.text as string, fields: s.fields as never, cites: s.cites as string[] });
  },
  /** kb_publish(kind, name, text, fields) → object + reused: the same content reuses, new content revises */
  kb_publish: (ctx, kind, name, text, fields) => {
    if (kind !== 'program' && kind !== 'tool') throw new KnowledgeError('kb_publish: kind must be "program" or "tool"');
    return session(ctx, 'kb_publish').publish(kind, name, text, fields);
  },
  /** kb_get(id, version?) → object (that version's text and fields) */
  kb_get: (ctx, id, version) => session(ctx, 'kb_get').get(id, version),
  /** kb_find({kind?, name?, text?, fields?, cites?, status?, stale?, mine?, limit?}) → list of objects */
  kb_find: (ctx, query) => {
    const q = map('kb_find', query, 'query');
    only('kb_find', q, FIND_KEYS);
    return session(ctx, 'kb_find').find(q);
  },
  /** kb_inspect(id) → fields, provenance, cites, cited_by, dependents, checks, history */
  kb_inspect: (ctx, id) => session(ctx, 'kb_inspect').inspect(id),
  /** kb_dependents(id) → ids resting on id, directly or transitively */
  kb_dependents: (ctx, id) => {
    const s = session(ctx, 'kb_dependents');
    return s.dependents(s.get(id).id);
  },
  /** kb_revise(id, {text?, fields?, cites?, note?}) → {id, version, stale: [ids marked stale]} */
  kb_revise: (ctx, id, changes) => {
    const c = map('kb_revise', changes, 'changes');
    only('kb_revise', c, REVISE_KEYS);
    return session(ctx, 'kb_revise').revise(id, c);
  },
  /** kb_confirm(id, note?) → object: reviewed, still holds; clears its staleness */
  kb_confirm: (ctx, id, note) => session(ctx, 'kb_confirm').confirm(id, note),
  /** kb_stale() → stale objects with `because` */
  kb_stale: (ctx) => session(ctx, 'kb_stale').stale(),
  /** kb_check_record(id, check, version, "accepted"|"rejected", evidence) → the record */
  kb_check_record: (ctx, id, check, version, outcome, evidence) => session(ctx, 'kb_check_record').recordCheck(id, check, version, outcome, evidence),
  /** kb_check_lookup(id, check, version) → the verdict on the current version, or null */
  kb_check_lookup: (ctx, id, check, version) => session(ctx, 'kb_check_lookup').lookupCheck(id, check, version),
  /** kb_commit(ids?) → {committed, skipped} */
  kb_commit: (ctx, ids) => session(ctx, 'kb_commit').commit(ids),
  /** kb_run() → this run's id in the knowledge store */
  kb_run: (ctx) => session(ctx, 'kb_run').runId,
};
