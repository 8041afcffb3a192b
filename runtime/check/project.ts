// Where `use "name"` finds a module that is not beside the file: the project's `turn.json`.
//
//   { "paths": { "lib": "./vendor/lib", "money": "./shared/money.tn" } }
//
// The project is the folder of the nearest `turn.json` above the using file. A bare spec (one that
// starts with neither `./`, `../` nor `/`) is looked for beside the file first (what `use` always
// did), then under the longest `paths` key that is the spec or a folder prefix of it, then in the
// project folder itself. turn.json is read at compile time, like the sources (modules are code:
// they are not read under the run's file grant), bounded in size, and a broken one is a located
// error at the `use` that needed it.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PROJECT_FILE = 'turn.json';
/** A project file is a handful of names; anything larger is not one. */
export const MAX_PROJECT_FILE_BYTES = 64 * 1024;
/** How many folders are searched upwards for a turn.json. */
const MAX_PROJECT_DEPTH = 64;

export interface Project {
  /** the folder of turn.json */
  root: string;
  file: string;
  /** `paths` as absolute targets, longest key first */
  paths: { key: string; target: string }[];
}

export type ProjectLookup = { ok: true; project: Project | undefined } | { ok: false; message: string };

/** Parsed project files by path, kept while their mtime and size stay the same (the editor re-resolves on every check). */
const cache = new Map<string, { stamp: string; lookup: ProjectLookup }>();

/** The project of the file at `fromFile`: the nearest turn.json above it, parsed; undefined when there is none. */
export function projectOf(fromFile: string): ProjectLookup {
  let dir = path.dirname(path.resolve(fromFile));
  for (let i = 0; i < MAX_PROJECT_DEPTH; i++) {
    const file = path.join(dir, PROJECT_FILE);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(file);
    } catch {
      stat = undefined;
    }
    if (stat?.isFile()) return readProject(file, stat);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { ok: true, project: undefined };
}

function readProject(file: string, stat: fs.Stats): ProjectLookup {
  const stamp = `${stat.mtimeMs}:${stat.size}`;
  const cached = cache.get(file);
  if (cached?.stamp === stamp) return cached.lookup;
  const lookup = parseProject(file, stat.size);
  cache.set(file, { stamp, lookup });
  return lookup;
}

function parseProject(file: string, size: number): ProjectLookup {
  const fail = (why: string): ProjectLookup => ({ ok: false, message: `${file}: ${why}` });
  if (size > MAX_PROJECT_FILE_BYTES) return fail(`too large for a project file (${size} bytes; the limit is ${MAX_PROJECT_FILE_BYTES})`);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    return fail(`not valid JSON (${(e as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail('must hold a JSON object, such as {"paths": {"lib": "./lib"}}');
  const root = path.dirname(file);
  const raw = (data as Record<string, unknown>).paths;
  if (raw === undefined) return { ok: true, project: { root, file, paths: [] } };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('"paths" must be an object of names to relative paths, such as {"lib": "./lib"}');
  const paths: Project['paths'] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string' || value === '') return fail(`"paths"."${key}" must be a non-empty string (a path relative to ${PROJECT_FILE})`);
    if (path.isAbsolute(value)) return fail(`"paths"."${key}" must be relative to the project folder, not absolute ("${value}")`);
    if (!/^[A-Za-z0-9_@.-]+(\/[A-Za-z0-9_@.-]+)*$/.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
      return fail(`"paths" key "${key}" must be a module name such as "lib" or "acme/money" (letters, digits, _ - . @ and /)`);
    }
    paths.push({ key, target: path.resolve(root, value) });
  }
  paths.sort((a, b) => b.key.length - a.key.length);
  return { ok: true, project: { root, file, paths } };
}

/** Whether `spec` names a module by a path of its own (relative or absolute) rather than by name. */
export function isPathSpec(spec: string): boolean {
  return spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..' || path.isAbsolute(spec);
}

/** The candidate bases for a bare spec in `project`, in the order they are tried (without `.tn`). */
export function projectCandidates(project: Project, spec: string): string[] {
  const out: string[] = [];
  for (const { key, target } of project.paths) {
    if (spec === key) out.push(target);
    else if (spec.startsWith(key + '/')) out.push(path.join(target, spec.slice(key.length + 1)));
  }
  out.push(path.resolve(project.root, spec));
  return out;
}
