// The knowledge store: objects with stable identity and provenance (materials, claims, reports,
// programs, tools), the citations between them, their revision history and the verdicts of the
// checks run on them. One SQLite file shared by every run in a store folder (`.turn/knowledge.db`);
// each run sees the committed objects plus its own drafts. See docs/knowledge.md.
//
// Every method is synchronous and one transaction: "returned" means "committed".
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlConnection, SqlParam } from '../store/sqlite-schema.js';
import { knowledgeConnection } from './connection.js';
import type { DriverName } from '../store/open.js';

export const KNOWLEDGE_FILE = 'knowledge.db';
export const KNOWLEDGE_SCHEMA_VERSION = 1;
/** PRAGMA application_id of a knowledge file: 'TRNK'. */
const APPLICATION_ID = 0x54524e4b;

export const KINDS = ['material', 'claim', 'report', 'program', 'tool'] as const;
export type Kind = (typeof KINDS)[number];
export type Status = 'draft' | 'committed' | 'rejected';
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Fields = Record<string, Json>;

/** What each kind may cite (rest on). */
const MAY_CITE: Record<Kind, readonly Kind[]> = {
  material: ['material'],
  claim: ['material', 'claim'],
  report: ['claim', 'material', 'report'],
  program: ['program', 'tool'],
  tool: ['tool'],
};

import { KnowledgeError } from './errors.js';
export { KnowledgeError };

export const SCHEMA = `
-- Objects with stable identity: "<kind>/<n>". The current version's content lives here; every
-- version (the current one included) is also in object_versions.
CREATE TABLE IF NOT EXISTS objects (
  n             INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT    NOT NULL UNIQUE,
  kind          TEXT    NOT NULL CHECK (kind IN ('material','claim','report','program','tool')),
  name          TEXT,                                 -- programs and tools: their name; else optional
  text          TEXT    NOT NULL DEFAULT '',
  fields        TEXT    NOT NULL DEFAULT '{}',         -- JSON object
  version       INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  status        TEXT    NOT NULL CHECK (status IN ('draft','committed','rejected')),
  stale         INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0,1)),
  stale_because TEXT,                                 -- JSON {"id","version","at"}: the revision that made it stale
  run_id        TEXT    NOT NULL,                     -- the run that created it
  created_at    INTEGER NOT NULL,
  revised_at    INTEGER NOT NULL,
  committed_at  INTEGER                               -- NULL: in progress, visible to run_id only
);
CREATE INDEX IF NOT EXISTS objects_by_kind ON objects (kind, name);
CREATE INDEX IF NOT EXISTS objects_stale ON objects (n) WHERE stale = 1;

-- Revision history: one row per version.
CREATE TABLE IF NOT EXISTS object_versions (
  id         TEXT    NOT NULL REFERENCES objects (id),
  version    INTEGER NOT NULL,
  text       TEXT    NOT NULL,
  fields     TEXT    NOT NULL,
  cites      TEXT    NOT NULL,                        -- JSON [[id, version], ...] as cited by this version
  run_id     TEXT    NOT NULL,                        -- the run that wrote this version
  note       TEXT,
  at         INTEGER NOT NULL,
  PRIMARY KEY (id, version)
) WITHOUT ROWID;

-- Citations (dependencies): from rests on to, as to was at to_version.
CREATE TABLE IF NOT EXISTS citations (
  from_id    TEXT    NOT NULL REFERENCES objects (id),
  to_id      TEXT    NOT NULL REFERENCES objects (id),
  to_version INTEGER NOT NULL,
  PRIMARY KEY (from_id, to_id)
);                                                    -- rowid order = the order the object cites them
CREATE INDEX IF NOT EXISTS citations_to ON citations (to_id);

-- Check verdicts: check (name, version) ran on object at object_version and accepted or
-- rejected it with this evidence. A verdict says the rule ran, not that the claim is true.
CREATE TABLE IF NOT EXISTS checks (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  object_id      TEXT    NOT NULL REFERENCES objects (id),
  object_version INTEGER NOT NULL,
  check_name     TEXT    NOT NULL,
  check_version  TEXT    NOT NULL,
  outcome        TEXT    NOT NULL CHECK (outcome IN ('accepted','rejected')),
  evidence       TEXT    NOT NULL,                    -- JSON
  basis          TEXT    NOT NULL,                    -- JSON [[id, version]]: what the object cited, at which versions, when checked
  run_id         TEXT    NOT NULL,
  at             INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS checks_by_object ON checks (object_id, object_version, check_name, check_version);
`;

interface Row {
  n: number;
  id: string;
  kind: Kind;
  name: string | null;
  text: string;
  fields: string;
  version: number;
  status: Status;
  stale: number;
  stale_because: string | null;
  run_id: string;
  created_at: number;
  revised_at: number;
  committed_at: number | null;
}

/** An object as programs see it (kb_get, kb_find). */
export interface KObject {
  id: string;
  kind: Kind;
  name: string | null;
  version: number;
  text: string;
  fields: Fields;
  status: Status;
  stale: boolean;
  committed: boolean;
  run: string;
}

export interface CheckRecord {
  check: string;
  basis: Json;
  version: string;
  outcome: 'accepted' | 'rejected';
  evidence: Json;
  object_version: number;
  run: string;
  at: string;
}

export interface PutSpec {
  kind: Kind;
  name?: string | null;
  text?: string;
  fields?: Fields;
  cites?: string[];
}

export interface ReviseSpec {
  text?: string;
  fields?: Fields;
  cites?: string[];
  note?: string;
  /** replace the fields instead of merging the changes into them */
  replace?: boolean;
}

export interface FindQuery {
  kind?: Kind;
  name?: string;
  text?: string;
  fields?: Fields;
  cites?: string;
  status?: Status;
  stale?: boolean;
  mine?: boolean;
  limit?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function jsonEq(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The shared knowledge database. Runs talk to it through a KnowledgeSession. */
export class KnowledgeStore {
  private closed = false;
  private constructor(
    private readonly db: SqlConnection,
    readonly file: string,
    private readonly clock: () => number,
    /** the SQLite driver it runs on (the run store's choice: docs/knowledge.md) */
    readonly driver: DriverName,
  ) {}

  /** Opens (creating if needed) `<dir>/knowledge.db`. Several runs may share it (WAL, normal locking). */
  static open(dir: string, options: { now?: () => number; busyTimeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): KnowledgeStore {
    fs.mkdirSync(dir, { recursive: true });
    const ignore = path.join(dir, '.gitignore');
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# the Turn run store (docs/durability.md)\n*\n');
    const file = path.resolve(dir, KNOWLEDGE_FILE);
    const busy = Math.max(0, options.busyTimeoutMs ?? 5000);
    let db: SqlConnection;
    let driver: DriverName;
    try {
      // every connection's own settings (the WebAssembly driver opens one per transaction)
      const opened = knowledgeConnection(file, (c) => {
        c.exec(`PRAGMA busy_timeout = ${busy}`);
        c.exec('PRAGMA journal_mode = WAL');
        c.exec('PRAGMA synchronous = FULL');
        c.exec('PRAGMA foreign_keys = ON');
      }, busy, options.env ?? process.env);
      db = opened.db;
      driver = opened.driver;
    } catch (e) {
      throw new KnowledgeError(`cannot open the knowledge store ${file}: ${(e as Error).message}`);
    }
    try {
      const app = Number(db.prepare('PRAGMA application_id').get()?.application_id ?? 0);
      const user = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
      if (app !== 0 && app !== APPLICATION_ID) throw new KnowledgeError(`${file} is not a Turn knowledge store`);
      if (user > KNOWLEDGE_SCHEMA_VERSION) {
        throw new KnowledgeError(`${file} has knowledge schema ${user}; this Turn knows ${KNOWLEDGE_SCHEMA_VERSION}: upgrade Turn`);
      }
      if (user < KNOWLEDGE_SCHEMA_VERSION) {
        db.exec('BEGIN IMMEDIATE');
        db.exec(SCHEMA);
        db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
        db.exec(`PRAGMA user_version = ${KNOWLEDGE_SCHEMA_VERSION}`);
        db.exec('COMMIT');
      }
    } catch (e) {
      db.close();
      throw e instanceof KnowledgeError ? e : new KnowledgeError(`cannot open the knowledge store ${file}: ${(e as Error).message}`);
    }
    return new KnowledgeStore(db, file, options.now ?? Date.now, driver);
  }

  /** A run's view: committed objects plus the run's own drafts; writes are attributed to `runId`. */
  session(runId: string): KnowledgeSession {
    return new KnowledgeSession(this, runId);
  }

  close(): void {
    if (!this.closed) this.db.close();
    this.closed = true;
  }

  // ---- internals used by sessions ---------------------------------------------------------

  /** @internal */
  now(): number {
    return this.clock();
  }

  /** @internal runs `f` in one IMMEDIATE transaction */
  tx<T>(f: () => T): T {
    if (this.closed) throw new KnowledgeError('the knowledge store is closed');
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const v = f();
      this.db.exec('COMMIT');
      return v;
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  /** @internal */
  all(sql: string, ...p: SqlParam[]): Record<string, unknown>[] {
    return this.db.prepare(sql).all(...p);
  }
  /** @internal */
  get(sql: string, ...p: SqlParam[]): Record<string, unknown> | undefined {
    return this.db.prepare(sql).get(...p);
  }
  /** @internal */
  run(sql: string, ...p: SqlParam[]): void {
    this.db.prepare(sql).run(...p);
  }
}

function fieldsOf(v: unknown, what: string): Fields {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new KnowledgeError(`${what} must be a map`);
  return v as Fields;
}

function idsOf(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw new KnowledgeError(`${what} must be a list of object ids`);
  return [...new Set(list as string[])];
}

export class KnowledgeSession {
  constructor(
    readonly store: KnowledgeStore,
    readonly runId: string,
  ) {}

  private row(id: string): Row | undefined {
    const r = this.store.get('SELECT * FROM objects WHERE id = ?', id) as Row | undefined;
    if (!r) return undefined;
    if (r.committed_at === null && r.run_id !== this.runId) return undefined; // another run's draft
    return r;
  }

  private need(id: unknown, tool: string): Row {
    if (typeof id !== 'string') throw new KnowledgeError(`${tool}: an object id must be a Str`);
    const r = this.row(id);
    if (!r) throw new KnowledgeError(`${tool}: no object ${id} (or it is another run's uncommitted draft)`);
    return r;
  }

  private view(r: Row): KObject {
    return {
      id: r.id,
      kind: r.kind,
      name: r.name,
      version: r.version,
      text: r.text,
      fields: JSON.parse(r.fields) as Fields,
      status: r.status,
      stale: r.stale === 1,
      committed: r.committed_at !== null,
      run: r.run_id,
    };
  }

  private checkCites(kind: Kind, cites: string[], self?: string): Row[] {
    return cites.map((c) => {
      const target = this.need(c, `a ${kind}'s citation`);
      if (c === self) throw new KnowledgeError(`${self} cannot cite itself`);
      if (!MAY_CITE[kind].includes(target.kind)) {
        throw new KnowledgeError(`a ${kind} cannot cite a ${target.kind} (${c}); a ${kind} may cite: ${MAY_CITE[kind].join(', ')}`);
      }
      if (target.status === 'rejected') throw new KnowledgeError(`${c} was rejected by a check; a ${kind} cannot rest on it`);
      if (self && this.dependents(self).includes(c)) throw new KnowledgeError(`${self} citing ${c} would make a cycle`);
      return target;
    });
  }

  private writeCites(from: string, targets: Row[]): void {
    this.store.run('DELETE FROM citations WHERE from_id = ?', from);
    for (const t of targets) this.store.run('INSERT INTO citations (from_id, to_id, to_version) VALUES (?, ?, ?)', from, t.id, t.version);
  }

  private citesJson(id: string): string {
    const rows = this.store.all('SELECT to_id, to_version FROM citations WHERE from_id = ? ORDER BY rowid', id);
    return JSON.stringify(rows.map((r) => [r.to_id, r.to_version]));
  }

  /** Creates an object (a draft of this run). Programs and tools need a name. */
  put(spec: PutSpec): KObject {
    const kind = spec.kind;
    if (!KINDS.includes(kind)) throw new KnowledgeError(`unknown kind ${String(kind)} (use ${KINDS.join(', ')})`);
    const fields = fieldsOf(spec.fields, 'fields');
    const text = spec.text ?? '';
    if (typeof text !== 'string') throw new KnowledgeError('text must be a Str');
    const name = spec.name ?? null;
    if (name !== null && typeof name !== 'string') throw new KnowledgeError('name must be a Str');
    if ((kind === 'program' || kind === 'tool') && !name) throw new KnowledgeError(`a ${kind} needs a name`);
    if (kind === 'material' && (typeof fields.source !== 'string' || !fields.source)) {
      throw new KnowledgeError('a material needs its source (fields.source: where it came from)');
    }
    const cites = idsOf(spec.cites, 'cites');
    if ((kind === 'claim' || kind === 'report') && cites.length === 0) {
      throw new KnowledgeError(`a ${kind} must cite what it rests on (at least one object id)`);
    }
    return this.store.tx(() => {
      const targets = this.checkCites(kind, cites);
      const now = this.store.now();
      this.store.run(
        `INSERT INTO objects (id, kind, name, text, fields, version, status, run_id, created_at, revised_at)
         VALUES (?, ?, ?, ?, ?, 1, 'draft', ?, ?, ?)`,
        `pending-${now}-${Math.random()}`, kind, name, text, JSON.stringify(fields), this.runId, now, now,
      );
      const n = Number(this.store.get('SELECT last_insert_rowid() AS n')!.n);
      const id = `${kind}/${n}`;
      this.store.run('UPDATE objects SET id = ? WHERE n = ?', id, n);
      this.writeCites(id, targets);
      this.store.run(
        'INSERT INTO object_versions (id, version, text, fields, cites, run_id, note, at) VALUES (?, 1, ?, ?, ?, ?, ?, ?)',
        id, text, JSON.stringify(fields), this.citesJson(id), this.runId, 'created', now,
      );
      return this.view(this.row(id)!);
    });
  }

  /**
   * Publishes a program or tool version by name: the same text and fields as the newest visible
   * one reuse it (no new version); different ones revise it (a new version, its dependents stale);
   * none yet creates it.
   */
  publish(kind: 'program' | 'tool', name: unknown, text: unknown, fields: unknown): KObject & { reused: boolean } {
    if (typeof name !== 'string' || !name) throw new KnowledgeError(`a ${kind} needs a name`);
    const t = text === undefined || text === null ? '' : text;
    if (typeof t !== 'string') throw new KnowledgeError(`a ${kind}'s text must be a Str`);
    const f = fieldsOf(fields, 'fields');
    const existing = this.find({ kind, name });
    const last = existing[existing.length - 1];
    if (!last) return { ...this.put({ kind, name, text: t, fields: f }), reused: false };
    if (last.text === t && jsonEq(last.fields, f)) return { ...last, reused: true };
    this.revise(last.id, { text: t, fields: f, note: 'published', replace: true });
    return { ...this.get(last.id), reused: false };
  }

  get(id: unknown, version?: unknown): KObject {
    const r = this.need(id, 'kb_get');
    const o = this.view(r);
    if (version === undefined || version === null || version === r.version) return o;
    const v = this.store.get('SELECT * FROM object_versions WHERE id = ? AND version = ?', r.id, Number(version));
    if (!v) throw new KnowledgeError(`kb_get: ${r.id} has no version ${String(version)} (current: ${r.version})`);
    return { ...o, version: Number(v.version), text: String(v.text), fields: JSON.parse(String(v.fields)) as Fields };
  }

  find(q: FindQuery = {}): KObject[] {
    const where: string[] = ['(committed_at IS NOT NULL OR run_id = ?)'];
    const params: SqlParam[] = [this.runId];
    const and = (clause: string, param: SqlParam): void => {
      where.push(clause);
      params.push(param);
    };
    if (q.kind !== undefined) and('kind = ?', q.kind);
    if (q.name !== undefined) and('name = ?', q.name);
    if (q.status !== undefined) and('status = ?', q.status);
    if (q.stale !== undefined) and('stale = ?', q.stale ? 1 : 0);
    if (q.mine) and('run_id = ?', this.runId);
    if (q.text !== undefined) and("instr(lower(text), lower(?)) > 0", q.text);
    if (q.cites !== undefined) and('id IN (SELECT from_id FROM citations WHERE to_id = ?)', q.cites);
    let rows = (this.store.all(`SELECT * FROM objects WHERE ${where.join(' AND ')} ORDER BY n`, ...params) as unknown as Row[]).map((r) =>
      this.view(r),
    );
    if (q.fields) {
      const want = Object.entries(fieldsOf(q.fields, 'query fields'));
      rows = rows.filter((o) => want.every(([k, v]) => jsonEq(o.fields[k], v)));
    }
    if (q.limit !== undefined) rows = rows.slice(0, Math.max(0, q.limit));
    return rows;
  }

  /** Every object that rests on `id`, directly or transitively (breadth-first, each once). */
  dependents(id: string): string[] {
    return this.transitiveCiters(id, 'SELECT c.from_id AS f FROM citations c JOIN objects o ON o.id = c.from_id WHERE c.to_id = ? ORDER BY o.n').filter(
      (d) => this.row(d) !== undefined,
    );
  }

  /** Breadth-first over the citations graph, `citersOf` giving the direct citers of one object. */
  private transitiveCiters(id: string, citersOf: string): string[] {
    const seen = new Set<string>([id]);
    const out: string[] = [];
    let frontier = [id];
    while (frontier.length) {
      const next: string[] = [];
      for (const t of frontier) {
        for (const r of this.store.all(citersOf, t)) {
          const f = String(r.f);
          if (!seen.has(f)) {
            seen.add(f);
            out.push(f);
            next.push(f);
          }
        }
      }
      frontier = next;
    }
    return out;
  }

  /**
   * A new version of `id`. Every object resting on it, directly or transitively, becomes stale.
   * Revising an object clears its own staleness (it has been re-derived) and re-pins its citations
   * to the current versions; a rejected object becomes a draft again (to be checked anew).
   */
  revise(id: unknown, spec: ReviseSpec): { id: string; version: number; stale: string[] } {
    return this.store.tx(() => {
      const r = this.need(id, 'kb_revise');
      const text = spec.text ?? r.text;
      if (typeof text !== 'string') throw new KnowledgeError('kb_revise: text must be a Str');
      const old = JSON.parse(r.fields) as Fields;
      const fields = spec.fields === undefined ? old : spec.replace ? fieldsOf(spec.fields, 'fields') : { ...old, ...fieldsOf(spec.fields, 'fields') };
      if (r.kind === 'material' && (typeof fields.source !== 'string' || !fields.source)) throw new KnowledgeError('a material needs its source');
      const citeIds =
        spec.cites === undefined
          ? this.store.all('SELECT to_id FROM citations WHERE from_id = ? ORDER BY rowid', r.id).map((x) => String(x.to_id))
          : idsOf(spec.cites, 'cites');
      if ((r.kind === 'claim' || r.kind === 'report') && citeIds.length === 0) throw new KnowledgeError(`a ${r.kind} must cite what it rests on`);
      const targets = this.checkCites(r.kind, citeIds, r.id);
      const now = this.store.now();
      const version = r.version + 1;
      const status: Status = r.status === 'rejected' ? (r.committed_at === null ? 'draft' : 'committed') : r.status;
      this.store.run(
        'UPDATE objects SET text = ?, fields = ?, version = ?, status = ?, stale = 0, stale_because = NULL, revised_at = ? WHERE id = ?',
        text, JSON.stringify(fields), version, status, now, r.id,
      );
      this.writeCites(r.id, targets);
      this.store.run(
        'INSERT INTO object_versions (id, version, text, fields, cites, run_id, note, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        r.id, version, text, JSON.stringify(fields), this.citesJson(r.id), this.runId, spec.note ?? 'revised', now,
      );
      const stale = this.markStale(r.id, version, now);
      return { id: r.id, version, stale };
    });
  }

  private markStale(id: string, version: number, now: number): string[] {
    const deps = this.dependentsAll(id);
    const because = JSON.stringify({ id, version, at: iso(now) });
    for (const d of deps) this.store.run('UPDATE objects SET stale = 1, stale_because = ? WHERE id = ?', because, d);
    return deps.filter((d) => this.row(d) !== undefined);
  }

  /** Dependents across every run (staleness is marked on other runs' drafts too). */
  private dependentsAll(id: string): string[] {
    return this.transitiveCiters(id, 'SELECT from_id AS f FROM citations WHERE to_id = ?');
  }

  /** After review, a stale object still holds: clear its staleness and re-pin its citations (no new version). */
  confirm(id: unknown, note?: unknown): KObject {
    return this.store.tx(() => {
      const r = this.need(id, 'kb_confirm');
      const targets = this.checkCites(
        r.kind,
        this.store.all('SELECT to_id FROM citations WHERE from_id = ? ORDER BY rowid', r.id).map((x) => String(x.to_id)),
        r.id,
      );
      this.writeCites(r.id, targets);
      this.store.run('UPDATE objects SET stale = 0, stale_because = NULL WHERE id = ?', r.id);
      this.store.run(
        'UPDATE object_versions SET note = ? WHERE id = ? AND version = ?',
        `confirmed${typeof note === 'string' && note ? ': ' + note : ''}`, r.id, r.version,
      );
      return this.view(this.row(r.id)!);
    });
  }

  /** Stale objects this run can see, oldest first, with what made each stale. */
  stale(): (KObject & { because: Json })[] {
    return (this.store.all('SELECT * FROM objects WHERE stale = 1 AND (committed_at IS NOT NULL OR run_id = ?) ORDER BY n', this.runId) as unknown as Row[]).map(
      (r) => ({ ...this.view(r), because: r.stale_because ? (JSON.parse(r.stale_because) as Json) : null }),
    );
  }

  /** Records a check's verdict on the object's current version. A rejection makes the object `rejected`. */
  recordCheck(id: unknown, check: unknown, version: unknown, outcome: unknown, evidence: unknown): CheckRecord {
    if (typeof check !== 'string' || !check) throw new KnowledgeError('kb_check: the check needs a name');
    if (typeof version !== 'string' && typeof version !== 'number') throw new KnowledgeError('kb_check: the check needs a version');
    if (outcome !== 'accepted' && outcome !== 'rejected') throw new KnowledgeError('kb_check: the outcome must be "accepted" or "rejected"');
    return this.store.tx(() => {
      const r = this.need(id, 'kb_check');
      const now = this.store.now();
      this.store.run(
        'INSERT INTO checks (object_id, object_version, check_name, check_version, outcome, evidence, basis, run_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        r.id, r.version, check, String(version), outcome, JSON.stringify(evidence ?? null), this.basis(r.id), this.runId, now,
      );
      if (outcome === 'rejected') this.store.run("UPDATE objects SET status = 'rejected' WHERE id = ?", r.id);
      return this.checkView(this.store.get('SELECT * FROM checks WHERE seq = last_insert_rowid()')!);
    });
  }

  /** What `id` rests on now: [[cited id, its current version], ...]. */
  private basis(id: string): string {
    return JSON.stringify(
      this.store.all('SELECT c.to_id, o.version FROM citations c JOIN objects o ON o.id = c.to_id WHERE c.from_id = ? ORDER BY c.rowid', id).map((x) => [
        x.to_id,
        Number(x.version),
      ]),
    );
  }

  /**
   * The latest verdict of check (name, version) on the object's current version, made on the same
   * basis (the objects it cites, at their current versions), by this run or committed; else null.
   */
  lookupCheck(id: unknown, check: unknown, version: unknown): CheckRecord | null {
    const r = this.need(id, 'kb_check_lookup');
    const row = this.store.get(
      `SELECT * FROM checks WHERE object_id = ? AND object_version = ? AND check_name = ? AND check_version = ? AND basis = ?
         AND (run_id = ? OR EXISTS (SELECT 1 FROM objects WHERE id = object_id AND committed_at IS NOT NULL))
       ORDER BY seq DESC LIMIT 1`,
      r.id, r.version, String(check), String(version), this.basis(r.id), this.runId,
    );
    return row ? this.checkView(row) : null;
  }

  private checkView(row: Record<string, unknown>): CheckRecord {
    return {
      check: String(row.check_name),
      basis: JSON.parse(String(row.basis)) as Json,
      version: String(row.check_version),
      outcome: row.outcome as 'accepted' | 'rejected',
      evidence: JSON.parse(String(row.evidence)) as Json,
      object_version: Number(row.object_version),
      run: String(row.run_id),
      at: iso(Number(row.at)),
    };
  }

  /** Fields, provenance, citations, dependents, verdicts and history of one object. */
  inspect(id: unknown): Record<string, Json> {
    const r = this.need(id, 'kb_inspect');
    const o = this.view(r);
    const cites = this.store
      .all('SELECT c.to_id, c.to_version FROM citations c WHERE c.from_id = ? ORDER BY c.rowid', r.id)
      .map((c) => {
        const t = this.row(String(c.to_id))!;
        const tv = this.view(t);
        return {
          id: t.id, kind: t.kind, cited_version: Number(c.to_version), current_version: t.version,
          changed_since: Number(c.to_version) !== t.version, text: tv.text, fields: tv.fields, status: t.status, stale: tv.stale,
        };
      });
    const citedBy = this.store
      .all('SELECT c.from_id FROM citations c JOIN objects o ON o.id = c.from_id WHERE c.to_id = ? ORDER BY o.n', r.id)
      .map((x) => String(x.from_id))
      .filter((x) => this.row(x) !== undefined);
    const checks = this.store.all('SELECT * FROM checks WHERE object_id = ? ORDER BY seq', r.id).map((c) => this.checkView(c));
    const current = checks.filter((c) => c.object_version === r.version);
    const latest = new Map<string, CheckRecord>();
    for (const c of current) latest.set(`${c.check}@${c.version}`, c);
    const history = this.store.all('SELECT * FROM object_versions WHERE id = ? ORDER BY version', r.id).map((v) => ({
      version: Number(v.version), text: String(v.text), fields: JSON.parse(String(v.fields)) as Json,
      cites: JSON.parse(String(v.cites)) as Json, run: String(v.run_id), note: v.note === null ? null : String(v.note), at: iso(Number(v.at)),
    }));
    return {
      ...(o as unknown as Record<string, Json>),
      provenance: {
        created_by_run: r.run_id,
        created_at: iso(r.created_at),
        revised_at: iso(r.revised_at),
        committed_at: r.committed_at === null ? null : iso(r.committed_at),
        source: r.kind === 'material' ? (o.fields.source ?? null) : null,
        rests_on: cites.map((c) => c.id),
      },
      cites,
      cited_by: citedBy,
      dependents: this.dependents(r.id),
      stale_because: r.stale_because ? (JSON.parse(r.stale_because) as Json) : null,
      checks: checks as unknown as Json,
      accepted_by: [...latest.values()].filter((c) => c.outcome === 'accepted').map((c) => `${c.check}@${c.version}`),
      rejected_by: [...latest.values()].filter((c) => c.outcome === 'rejected').map((c) => `${c.check}@${c.version}`),
      history,
    };
  }

  /**
   * Commits this run's drafts (all, or the ids given): they become shared knowledge, visible to
   * every later run. Rejected objects, and drafts citing another uncommitted draft that is not
   * committed with them, are skipped with the reason.
   */
  commit(ids?: unknown): { committed: string[]; skipped: { id: string; reason: string }[] } {
    return this.store.tx(() => {
      const mine = (this.store.all('SELECT * FROM objects WHERE run_id = ? AND committed_at IS NULL ORDER BY n', this.runId) as unknown as Row[]);
      const wanted = ids === undefined || ids === null ? null : new Set(idsOf(ids, 'kb_commit ids'));
      if (wanted) for (const w of wanted) this.need(w, 'kb_commit');
      const skipped: { id: string; reason: string }[] = [];
      const committing = new Set<string>();
      for (const r of mine) {
        if (wanted && !wanted.has(r.id)) continue;
        if (r.status === 'rejected') skipped.push({ id: r.id, reason: 'rejected by a check' });
        else committing.add(r.id);
      }
      // a draft resting on an uncommitted object that is not committed with it stays a draft
      let changed = true;
      while (changed) {
        changed = false;
        for (const id of [...committing]) {
          const bad = this.store
            .all('SELECT c.to_id FROM citations c JOIN objects o ON o.id = c.to_id WHERE c.from_id = ? AND o.committed_at IS NULL', id)
            .map((x) => String(x.to_id))
            .find((t) => !committing.has(t));
          if (bad) {
            committing.delete(id);
            skipped.push({ id, reason: `it cites ${bad}, which is not committed` });
            changed = true;
          }
        }
      }
      const now = this.store.now();
      const committed = mine.filter((r) => committing.has(r.id)).map((r) => r.id);
      for (const id of committed) this.store.run("UPDATE objects SET committed_at = ?, status = 'committed' WHERE id = ?", now, id);
      return { committed, skipped };
    });
  }
}
