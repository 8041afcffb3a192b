// File effects checked against the files capability. A path is resolved against the working
// directory, then its real path (symlinks followed; for a file that does not exist yet, the real
// path of its nearest existing ancestor) must lie inside a granted root's real path. So `..`
// and symlinks cannot lead out of a root. Writes open with O_NOFOLLOW so a symlink swapped in at
// the last moment is not followed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { check, requireApproval, EffectDenied, describeFiles, type ApprovalHook, type ApprovalRecord, type Capabilities } from './capabilities.js';

export interface FsContext {
  capabilities: Capabilities;
  /** Relative paths resolve against this; default process.cwd(). */
  cwd?: string;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  /** Largest file read, in bytes; default 10 MiB. */
  maxReadBytes?: number;
}

export class FsEffectError extends Error {}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest. */
export async function realPathNearest(p: string): Promise<string> {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      const real = await fs.promises.realpath(cur);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

async function realCaps(caps: Capabilities): Promise<Capabilities> {
  if (!caps.files) return caps;
  const files = await Promise.all(
    caps.files.map(async (f) => ({ ...f, roots: await Promise.all(f.roots.map((r) => realPathNearest(path.resolve(r)))) })),
  );
  return { ...caps, files };
}

/**
 * Resolves `p` and checks it against the files capability for `mode`; returns the real path to
 * use. Throws EffectDenied with the capability's message.
 */
export async function authorizePath(p: string, mode: 'read' | 'write', ctx: FsContext): Promise<string> {
  if (typeof p !== 'string' || p === '' || p.includes('\0')) throw new FsEffectError('a file path must be a non-empty string');
  const abs = path.resolve(ctx.cwd ?? process.cwd(), p);
  // The lexical path must be inside a root as written...
  const lexical = check(ctx.capabilities, { kind: 'files', path: abs, mode });
  if (!lexical.ok) throw new EffectDenied(lexical.message);
  // ...and so must the real one (symlinks resolved on both sides).
  const real = await realPathNearest(abs);
  const verdict = check(await realCaps(ctx.capabilities), { kind: 'files', path: real, mode });
  if (!verdict.ok) {
    throw new EffectDenied(`file ${mode} access to ${abs} is not granted: it resolves to ${real}, outside the allowed roots (allowed: ${describeFiles(ctx.capabilities.files)})`);
  }
  await requireApproval(lexical.approve || verdict.approve, { effect: 'files', summary: `${mode} ${abs}` }, ctx.approve, ctx.journal);
  return real;
}

export async function readFileEffect(p: string, ctx: FsContext): Promise<string> {
  const real = await authorizePath(p, 'read', ctx);
  try {
    const stat = await fs.promises.stat(real);
    if (!stat.isFile()) throw new FsEffectError(`${p} is not a file`);
    const limit = ctx.maxReadBytes ?? 10 * 1024 * 1024;
    if (stat.size > limit) throw new FsEffectError(`${p} is larger than ${limit} bytes`);
    return await fs.promises.readFile(real, 'utf8');
  } catch (e) {
    throw wrap(e, p);
  }
}

export async function writeFileEffect(p: string, content: string, ctx: FsContext, options: { append?: boolean } = {}): Promise<void> {
  const real = await authorizePath(p, 'write', ctx);
  const c = fs.constants;
  const flags = c.O_WRONLY | c.O_CREAT | (options.append ? c.O_APPEND : c.O_TRUNC) | (c.O_NOFOLLOW ?? 0);
  try {
    const handle = await fs.promises.open(real, flags, 0o644);
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw wrap(e, p);
  }
}

export async function listDirEffect(p: string, ctx: FsContext): Promise<string[]> {
  const real = await authorizePath(p, 'read', ctx);
  try {
    return (await fs.promises.readdir(real)).sort();
  } catch (e) {
    throw wrap(e, p);
  }
}

export async function existsEffect(p: string, ctx: FsContext): Promise<boolean> {
  const real = await authorizePath(p, 'read', ctx);
  try {
    await fs.promises.lstat(real);
    return true;
  } catch {
    return false;
  }
}

function wrap(e: unknown, p: string): Error {
  if (e instanceof FsEffectError || e instanceof EffectDenied) return e;
  const code = (e as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    ENOENT: 'does not exist',
    EISDIR: 'is a directory',
    ENOTDIR: 'is not a directory',
    EACCES: 'is not accessible (permission denied)',
    ELOOP: 'is a symbolic link',
  };
  return new FsEffectError(`${p} ${why[code ?? ''] ?? `cannot be accessed (${code ?? (e as Error).message})`}`);
}
