// Absorbing a live MCP server (`use schema::mcp("http://.../mcp")`, `use schema::mcp({"command": ...})`):
// its tools are listed once at compile time and cached like a URL spec (one file per server,
// refreshed with --refresh-schemas). The editor never launches or contacts a server on its own:
// an uncached server is a diagnostic whose quick fix lists it. A stdio server is launched for the
// listing only when the command is granted (`--allow-run`), with the environment rules of a run
// (`pass_env` names need `--allow-env`; the run's secrets never pass).
import { sha256Hex } from '../hash.js';
import { writeFileAtomic } from '../fs-atomic.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Capabilities } from '../effects/capabilities.js';
import { describeServer, launchKey, serverKey, type McpServerSpec } from './server.js';

export interface ListingOptions {
  cacheDir: string;
  refresh?: boolean;
  /** HTTP servers may be contacted (the CLI; the editor's quick fix) */
  contact?: boolean;
  /** commands a stdio server may be launched with: a list as `--allow-run` takes, or true for any (the editor's quick fix) */
  launch?: boolean | readonly string[];
  /** variables a stdio server's `pass_env` may name (`--allow-env`); absent: none, or with `launch: true` the map's own */
  allowEnv?: readonly string[];
  cwd: string;
  timeoutMs?: number;
}

export type Listing = { ok: true; text: string; file: string; cached: boolean; warning?: string } | { ok: false; message: string };

export function listingCacheFile(cacheDir: string, spec: McpServerSpec): string {
  return path.join(cacheDir, sha256Hex('mcp\u0000' + serverKey(spec)) + '.tools.json');
}

/** The server's `tools/list` result as JSON text: from the cache, or listed now. Never throws. */
export async function listServerTools(spec: McpServerSpec, o: ListingOptions): Promise<Listing> {
  const file = listingCacheFile(o.cacheDir, spec);
  const cached = (): string | undefined => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  const shown = describeServer(spec);
  if (!o.refresh) {
    const text = cached();
    if (text !== undefined) return { ok: true, text, file, cached: true };
  }
  const capabilities: Capabilities = {};
  if (spec.kind === 'http') {
    if (!o.contact) return { ok: false, message: `the MCP server ${shown} is not cached and contacting it is not available here` };
    capabilities.network = { hosts: ['*'] };
  } else {
    const granted = o.launch === true ? ['*'] : [...(o.launch || [])];
    if (granted.length === 0) return { ok: false, message: `the MCP server ${shown} is not cached: list its tools with --allow-run ${spec.command} (its command is launched only when granted)` };
    capabilities.run = { commands: granted };
    // the CLI passes what --allow-env grants; the editor's quick fix (launch: true) is a person's
    // click on this map, pass_env names included (its secrets are refused all the same: launch.ts)
    const envNames = o.allowEnv ?? (o.launch === true ? spec.passEnv : []);
    if (envNames.length > 0) capabilities.env = { names: [...envNames] };
  }
  try {
    const { McpSession } = await import('./session.js');
    // the map being listed is the literal of a `use schema::mcp({...})` (absorbSchemas takes no other)
    const writtenLaunches = new Set(spec.kind === 'stdio' ? [launchKey(spec)] : []);
    const session = await withTimeout(McpSession.open(spec, { capabilities, cwd: o.cwd, env: process.env, writtenLaunches }), o.timeoutMs ?? 30_000, shown);
    let tools;
    try {
      tools = await withTimeout(session.listTools(), o.timeoutMs ?? 30_000, shown);
    } finally {
      await session.close();
    }
    const text = JSON.stringify({ tools }, null, 2) + '\n';
    fs.mkdirSync(o.cacheDir, { recursive: true });
    writeFileAtomic(file, text);
    return { ok: true, text, file, cached: false };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const old = cached();
    if (old !== undefined) return { ok: true, text: old, file, cached: true, warning: `could not refresh the tools of ${shown} (${why}); using the cached list` };
    return { ok: false, message: `could not list the tools of the MCP server ${shown}: ${why}` };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, shown: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${shown} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
