// File effects checked against the files capability. The check is made on what is opened, not on
// the path as it was when checked (docs/authority.md, "Files"):
//
//  1. the path, resolved against the working directory, must lie in a granted root as written;
//  2. every component below that root must resolve (symlinks followed) inside the allowed roots:
//     a symlink that leaves them is refused even if a later one comes back;
//  3. the file is opened without following a symlink in its last component (O_NOFOLLOW) and never
//     waiting on a FIFO (O_NONBLOCK); on Linux its folder is opened first and checked through its
//     descriptor, and the file is opened inside that folder (`/proc/self/fd/N/name`), so swapping
//     an intermediate folder for a symlink cannot redirect it; a write truncates only after that;
//  4. what was opened is checked again: its real path, read from the descriptor on Linux
//     (`/proc/self/fd/N`), elsewhere re-resolved and compared by device and inode, must be inside
//     the roots, a regular file (or a folder, to list), and not a protected file.
//
// Some paths are never reachable, whatever is granted: every process's /proc entries
// (`/proc/self`, `/proc/thread-self`, `/proc/<pid>/...` of this process, its threads and any other
// process — environments and command lines hold secrets; on a procfs mounted elsewhere too, checked
// on what was opened), `/dev/fd` and `/dev/std*`, and the protected files (the `--secrets` file), by path
// and, for reads and writes, by inode (a hard link to it is refused too).
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
  /** Files no file effect may touch, whatever is granted (the `--secrets` file). */
  protectedFiles?: string[];
  /**
   * The capabilities `capabilities` were narrowed from (a capability map passed to one call): what
   * is reached must lie inside these too, by real path. A narrowed root may be a symlink inside a
   * granted root; where it points is not granted by that.
   */
  bound?: Capabilities;
}

export class FsEffectError extends Error {}

type Mode = 'read' | 'write';

const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;

/**
 * Linux's O_PATH (not in fs.constants): a folder opened with it needs search permission only, like
 * a path lookup through it. Its value is the generic one on these architectures.
 */
const O_PATH = process.platform === 'linux' && ['x64', 'ia32', 'arm', 'arm64', 'riscv64', 's390x', 'ppc64', 'loong64'].includes(process.arch) ? 0o10000000 : 0;

/** Opens a folder to look names up in (O_PATH where available, else for reading). */
async function openFolder(folder: string): Promise<fs.promises.FileHandle> {
  if (O_PATH) {
    try {
      return await fs.promises.open(folder, O_PATH | O_DIRECTORY);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw e;
    }
  }
  return fs.promises.open(folder, C.O_RDONLY | O_DIRECTORY);
}

/** Whether descriptors can be read back as paths through /proc/self/fd (Linux with /proc). */
const PROC_FD = (() => {
  if (process.platform !== 'linux') return false;
  try {
    return fs.statSync('/proc/self/fd').isDirectory();
  } catch {
    return false;
  }
})();

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

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * Why `p` (absolute, lexical or real) may never be reached through a file effect, or undefined:
 * every process's /proc entries (its environment and command line may hold secrets: this run's,
 * its parent shell's, another worker's) and this process's descriptors.
 */
export function selfPathReason(p: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  for (const own of ['/proc/self', '/proc/thread-self', `/proc/${process.pid}`, '/dev/fd']) {
    if (inside(own, p)) return `${p} is this process's own ${own.startsWith('/dev') ? 'descriptor table' : '/proc entry'} (it holds the run's environment and secrets)`;
  }
  if (/^\/dev\/std(in|out|err)$/.test(p)) return `${p} is one of this process's own descriptors`;
  const m = /^\/proc\/(\d+)(\/|$)/.exec(p);
  if (m && fs.existsSync(`/proc/${process.pid}/task/${m[1]}`)) return `${p} is a /proc entry of one of this process's threads`;
  if (m) return `${p} is a /proc entry of another process (a process's environment and command line can hold secrets)`;
  return undefined;
}

/** procfs's f_type (statfs(2)). */
const PROC_SUPER_MAGIC = 0x9fa0;

/**
 * Why an opened file (Linux: its descriptor's path) is a per-process entry of a procfs mounted
 * anywhere (a second mount of /proc, a bind mount of one of its folders): a component that is a
 * process id, `self` or `thread-self` on a procfs is refused, whatever its mount point.
 */
async function procfsReason(fd: number, opened: string): Promise<string | undefined> {
  if (!PROC_FD) return undefined;
  let type: number;
  try {
    type = (await fs.promises.statfs(`/proc/self/fd/${fd}`)).type;
  } catch {
    return undefined;
  }
  if (type !== PROC_SUPER_MAGIC) return undefined;
  const parts = opened.split('/').filter(Boolean);
  if (opened === '/' || parts.some((c) => /^\d+$/.test(c) || c === 'self' || c === 'thread-self')) return `${opened} is a per-process entry of a /proc file system (a process's environment and command line can hold secrets)`;
  return undefined;
}

interface Protected {
  real: string;
  dev: number;
  ino: number;
}

async function protectedFiles(ctx: FsContext): Promise<Protected[]> {
  const out: Protected[] = [];
  for (const f of ctx.protectedFiles ?? []) {
    try {
      const real = await fs.promises.realpath(path.resolve(ctx.cwd ?? process.cwd(), f));
      const st = await fs.promises.stat(real);
      out.push({ real, dev: st.dev, ino: st.ino });
    } catch {
      // gone: nothing to protect
    }
  }
  return out;
}

/** What authorizePath found: the path as asked, and where it really is. */
export interface Authorized {
  /** the path asked for, resolved against the working directory */
  abs: string;
  /** its real path (every symlink resolved; a path that does not exist yet below its nearest existing ancestor) */
  real: string;
  mode: Mode;
  /** the capabilities with their roots as real paths (and those they were narrowed from) */
  realCapabilities: Capabilities;
  realBound: Capabilities | undefined;
  protected: Protected[];
}

function denyOutside(abs: string, mode: Mode, real: string, ctx: FsContext, via?: string): EffectDenied {
  const through = via && via !== abs ? ` (through ${via})` : '';
  return new EffectDenied(
    `file ${mode} access to ${abs} is not granted: it resolves to ${real}${through}, outside the allowed roots (allowed: ${describeFiles(ctx.capabilities.files)})`,
  );
}

function denyNever(abs: string, mode: Mode, why: string): EffectDenied {
  return new EffectDenied(`file ${mode} access to ${abs} is never granted: ${why}`);
}

function denyProtected(abs: string, mode: Mode): EffectDenied {
  return new EffectDenied(`file ${mode} access to ${abs} is never granted: it is the run's secrets file`);
}

/**
 * Resolves `p` and checks it against the files capability for `mode` (see the top of this file,
 * steps 1 and 2), asks for approval when the grant says so, and returns where it is.
 * Throws EffectDenied with the capability's message.
 */
export async function authorize(p: string, mode: Mode, ctx: FsContext, summary?: string): Promise<Authorized> {
  if (typeof p !== 'string' || p === '' || p.includes('\0')) throw new FsEffectError('a file path must be a non-empty string');
  const abs = path.resolve(ctx.cwd ?? process.cwd(), p);
  const never = selfPathReason(abs);
  if (never) throw denyNever(abs, mode, never);
  // The lexical path must be inside a root as written...
  const lexical = check(ctx.capabilities, { kind: 'files', path: abs, mode });
  if (!lexical.ok) throw new EffectDenied(lexical.message);
  // ...and every component below that root must resolve inside the (real) roots.
  const realCapabilities = await realCaps(ctx.capabilities);
  const realBound = ctx.bound ? await realCaps(ctx.bound) : undefined;
  const allowed = (p: string) => check(realCapabilities, { kind: 'files', path: p, mode }).ok && (!realBound || check(realBound, { kind: 'files', path: p, mode }).ok);
  const roots = (ctx.capabilities.files ?? [])
    .filter((f) => f.mode === 'write' || mode === 'read')
    .flatMap((f) => f.roots.map((r) => path.resolve(r)))
    .filter((r) => inside(r, abs))
    .sort((a, b) => b.length - a.length);
  const start = roots[0] ?? abs;
  const rest = path.relative(start, abs).split(path.sep).filter(Boolean);
  let prefix = start;
  let real = await realPathNearest(start);
  const prot = await protectedFiles(ctx);
  for (let i = 0; ; i++) {
    const why = selfPathReason(real);
    if (why) throw denyNever(abs, mode, why);
    if (prot.some((f) => f.real === real)) throw denyProtected(abs, mode);
    if (!allowed(real)) throw denyOutside(abs, mode, real, ctx, prefix);
    if (i === rest.length) break;
    prefix = path.join(prefix, rest[i]);
    real = await realPathNearest(prefix);
  }
  const verdict = check(realCapabilities, { kind: 'files', path: real, mode });
  const approve = lexical.approve || (verdict.ok && verdict.approve);
  await requireApproval(approve, { effect: 'files', summary: summary ?? `${mode} ${abs}` }, ctx.approve, ctx.journal);
  return { abs, real, mode, realCapabilities, realBound, protected: prot };
}

/** `authorize`, returning the real path (kept for callers that only check). */
export async function authorizePath(p: string, mode: Mode, ctx: FsContext): Promise<string> {
  return (await authorize(p, mode, ctx)).real;
}

/** Checks a path an open descriptor was read back as (step 4). */
function checkOpened(a: Authorized, opened: string, ctx: FsContext): void {
  const why = selfPathReason(opened);
  if (why) throw denyNever(a.abs, a.mode, why);
  if (a.protected.some((f) => f.real === opened)) throw denyProtected(a.abs, a.mode);
  const inRoots = (caps: Capabilities) => check(caps, { kind: 'files', path: opened, mode: a.mode }).ok;
  if (!inRoots(a.realCapabilities) || (a.realBound && !inRoots(a.realBound))) throw denyOutside(a.abs, a.mode, opened, ctx);
}

/**
 * Opens the authorized path (step 3) and checks what was opened (step 4). `want`: a regular file
 * or a folder. The caller closes the handle.
 */
async function openChecked(a: Authorized, flags: number, want: 'file' | 'dir', ctx: FsContext, shown: string): Promise<fs.promises.FileHandle> {
  const handle = PROC_FD ? await openInFolder(a, flags | O_NOFOLLOW | O_NONBLOCK, ctx) : await fs.promises.open(a.real, flags | O_NOFOLLOW | O_NONBLOCK, 0o644);
  try {
    const st = await handle.stat();
    if (a.protected.some((f) => f.dev === st.dev && f.ino === st.ino)) throw denyProtected(a.abs, a.mode);
    if (PROC_FD) {
      const opened = await fs.promises.readlink(`/proc/self/fd/${handle.fd}`);
      checkOpened(a, opened, ctx);
      const why = await procfsReason(handle.fd, opened);
      if (why) throw denyNever(a.abs, a.mode, why);
    } else {
      const again = await fs.promises.realpath(a.real);
      checkOpened(a, again, ctx);
      const now = await fs.promises.stat(again);
      if (now.dev !== st.dev || now.ino !== st.ino) throw new EffectDenied(`file ${a.mode} access to ${a.abs} refused: it changed while it was opened`);
    }
    if (want === 'file' && !st.isFile()) throw new FsEffectError(`${shown} is not a file`);
    if (want === 'dir' && !st.isDirectory()) throw new FsEffectError(`${shown} is not a directory`);
    return handle;
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/**
 * Linux: opens the folder of the real path, checks through its descriptor that it is that folder
 * (no component was swapped since it was resolved), and opens the last component inside it.
 */
async function openInFolder(a: Authorized, flags: number, ctx: FsContext): Promise<fs.promises.FileHandle> {
  const folder = path.dirname(a.real);
  const name = path.basename(a.real);
  if (folder === a.real || name === '') return fs.promises.open(a.real, flags, 0o644); // the file system's root
  const dir = await openFolder(folder);
  try {
    const actual = await fs.promises.readlink(`/proc/self/fd/${dir.fd}`);
    if (actual !== folder) {
      checkOpened(a, actual, ctx);
      throw new EffectDenied(`file ${a.mode} access to ${a.abs} refused: ${folder} changed while it was opened (it is now ${actual})`);
    }
    return await fs.promises.open(`/proc/self/fd/${dir.fd}/${name}`, flags, 0o644);
  } finally {
    await dir.close();
  }
}

export async function readFileEffect(p: string, ctx: FsContext): Promise<string> {
  const a = await authorize(p, 'read', ctx);
  try {
    const handle = await openChecked(a, C.O_RDONLY, 'file', ctx, p);
    try {
      const limit = ctx.maxReadBytes ?? 10 * 1024 * 1024;
      if ((await handle.stat()).size > limit) throw new FsEffectError(`${p} is larger than ${limit} bytes`);
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw wrap(e, p);
  }
}

/**
 * A file's bytes (std/media), at most `limit` of them: its size is checked against the limit before
 * reading, and the read stops one byte past that size, so a file that grew meanwhile is refused.
 */
export async function readFileBytesEffect(p: string, ctx: FsContext, limit: number): Promise<Uint8Array> {
  const a = await authorize(p, 'read', ctx);
  try {
    const handle = await openChecked(a, C.O_RDONLY, 'file', ctx, p);
    try {
      const tooLarge = () => new FsEffectError(`${p} is larger than ${limit} bytes (the media limit; raise it with the max_bytes option)`);
      const size = (await handle.stat()).size;
      if (size > limit) throw tooLarge();
      // one byte more than its size: a file that grew after the check is seen and refused
      const buf = Buffer.alloc(size + 1);
      let n = 0;
      while (n < buf.length) {
        const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
      if (n > size) throw new FsEffectError(`${p} changed while it was read`);
      return buf.subarray(0, n);
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw wrap(e, p);
  }
}

export async function writeFileEffect(p: string, content: string, ctx: FsContext, options: { append?: boolean } = {}): Promise<void> {
  const a = await authorize(p, 'write', ctx);
  try {
    // no O_TRUNC: nothing is changed before what was opened has been checked
    const handle = await openChecked(a, C.O_WRONLY | C.O_CREAT | (options.append ? C.O_APPEND : 0), 'file', ctx, p);
    try {
      if (!options.append) await handle.truncate(0);
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw wrap(e, p);
  }
}

export async function listDirEffect(p: string, ctx: FsContext): Promise<string[]> {
  const a = await authorize(p, 'read', ctx);
  try {
    const handle = await openChecked(a, C.O_RDONLY | O_DIRECTORY, 'dir', ctx, p);
    try {
      // Linux: list the folder that was opened and checked, through its descriptor
      return (await fs.promises.readdir(PROC_FD ? `/proc/self/fd/${handle.fd}` : a.real)).sort();
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw wrap(e, p);
  }
}

export async function existsEffect(p: string, ctx: FsContext): Promise<boolean> {
  const a = await authorize(p, 'read', ctx);
  const folder = path.dirname(a.real);
  const name = path.basename(a.real);
  if (!PROC_FD || folder === a.real || name === '') {
    try {
      await fs.promises.lstat(a.real);
      return true;
    } catch {
      return false;
    }
  }
  // Linux: look the name up inside the folder that was opened and checked
  let dir: fs.promises.FileHandle;
  try {
    dir = await openFolder(folder);
  } catch {
    return false;
  }
  try {
    const actual = await fs.promises.readlink(`/proc/self/fd/${dir.fd}`);
    if (actual !== folder) {
      checkOpened(a, actual, ctx);
      throw new EffectDenied(`file read access to ${a.abs} refused: ${folder} changed while it was opened (it is now ${actual})`);
    }
    await fs.promises.lstat(`/proc/self/fd/${dir.fd}/${name}`);
    return true;
  } catch (e) {
    if (e instanceof EffectDenied) throw e;
    return false;
  } finally {
    await dir.close();
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
    ENXIO: 'is not a file (a FIFO or socket with nobody at the other end)',
  };
  return new FsEffectError(`${p} ${why[code ?? ''] ?? `cannot be accessed (${code ?? (e as Error).message})`}`);
}
