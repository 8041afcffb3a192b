// `$ref`s to other files and URLs (`$ref: "common.yaml#/Money"`, `$ref: "https://…/pet.json"`):
// bundled into the spec before it is absorbed, with @apidevtools/json-schema-ref-parser. Every
// external document is read the way the spec itself is (runtime/absorb/source.ts): a file relative
// to the document that refers to it, a URL only through the caller's fetch and the schema cache
// (so compile-time fetching obeys the same option as the spec's own URL), never a local file from a
// spec that came from a URL, and never a local file outside the folder of the spec the `use` line
// names (docs/authority.md, "Compile-time reach"). What cannot be resolved is an error at the
// `$ref` (with its line).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isUrl, loadSource, pointerOf, type SpecDoc } from './source.js';
import type { AbsorbOptions, SpecDiagnostic } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

/** The pointer of the first `$ref` (depth first) that names another document, or undefined. */
export function firstExternalRef(data: unknown, segments: (string | number)[] = [], depth = 0): string | undefined {
  if (depth > 200) return undefined;
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      const found = firstExternalRef(data[i], [...segments, i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObj(data)) return undefined;
  if (typeof data.$ref === 'string' && !data.$ref.startsWith('#')) return pointerOf([...segments, '$ref']);
  for (const [k, v] of Object.entries(data)) {
    const found = firstExternalRef(v, [...segments, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Every `$ref` naming another document: where it is (segments of its object) and what it says. */
function externalRefs(data: unknown, segments: (string | number)[] = [], out: { at: (string | number)[]; ref: string }[] = [], depth = 0): { at: (string | number)[]; ref: string }[] {
  if (depth > 200 || out.length > 10_000) return out;
  if (Array.isArray(data)) data.forEach((x, i) => externalRefs(x, [...segments, i], out, depth + 1));
  else if (isObj(data)) {
    if (typeof data.$ref === 'string' && !data.$ref.startsWith('#')) out.push({ at: segments, ref: data.$ref });
    for (const [k, v] of Object.entries(data)) externalRefs(v, [...segments, k], out, depth + 1);
  }
  return out;
}

/**
 * A schema brought in from another document is placed where it is first referred to; it keeps the
 * name it has there (`common.yaml#/Money` → a struct `Money`) through a `title`, unless it has one.
 */
function nameBroughtIn(bundled: unknown, refs: { at: (string | number)[]; ref: string }[]): void {
  for (const { at, ref } of refs) {
    const fragment = ref.includes('#') ? ref.slice(ref.indexOf('#') + 1) : '';
    const name = fragment.split('/').pop() ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    let node: unknown = bundled;
    for (const s of at) node = Array.isArray(node) ? node[Number(s)] : isObj(node) ? node[String(s)] : undefined;
    if (isObj(node) && node.$ref === undefined && node.title === undefined && (node.type === 'object' || isObj(node.properties))) node.title = name;
  }
}

/** Where the spec came from: its file, or its URL. */
export interface SpecOrigin {
  file?: string;
  url?: string;
  display: string;
}

/**
 * The spec's data with every external `$ref` brought in (they become local `#/...` refs), or
 * undefined after diagnostics. `doc` locates a failing `$ref` in the spec's own text.
 */
export async function bundleExternalRefs(doc: SpecDoc, origin: SpecOrigin, options: AbsorbOptions, diags: SpecDiagnostic[]): Promise<unknown> {
  const { default: $RefParser, ResolverError } = await import('@apidevtools/json-schema-ref-parser');
  const fromUrl = origin.url !== undefined;
  const base = origin.url ?? origin.file ?? origin.display;
  const reader = {
    order: 1,
    canRead: true,
    // A failure is thrown as the library's own ResolverError: any other error loses its message on the way out.
    read: async (file: { url: string }): Promise<string> => {
      try {
        return await readRef(file.url);
      } catch (e) {
        throw new ResolverError(e, file.url);
      }
    },
  };
  // the folder a local spec's external refs may read from (its real path: a symlink cannot widen it)
  const specFolder = origin.file !== undefined && !fromUrl ? realFolder(path.dirname(path.resolve(origin.file))) : undefined;
  let refused: string | undefined;
  const readRef = async (target: string): Promise<string> => {
    const remote = isUrl(target);
    if (fromUrl && !remote) throw new Error(`a spec fetched from ${origin.url} cannot refer to the local file ${target}`);
    const local = remote ? target : target.startsWith('file://') ? decodeURIComponent(new URL(target).pathname) : target;
    if (!remote && specFolder !== undefined && !insideFolder(specFolder, path.resolve(local))) {
      refused = path.resolve(local);
      throw new Error(`${refused} is outside the folder of the spec (${specFolder}): a spec's $refs may read only files under its own folder`);
    }
    const problems: SpecDiagnostic[] = [];
    const loaded = await loadSource(local, path.dirname(origin.file ?? '.'), options, problems);
    if (!loaded) throw new Error(problems.map((p) => p.message).join('; ') || `cannot read ${target}`);
    for (const p of problems) diags.push(p); // warnings (a stale cached copy)
    return loaded.text;
  };
  try {
    const refs = externalRefs(doc.data);
    const bundled: unknown = await $RefParser.bundle(base, structuredClone(doc.data) as object, {
      resolve: { file: false, http: false, external: true, turn: reader },
      continueOnError: false,
      mutateInputSchema: true,
    } as never);
    nameBroughtIn(bundled, refs);
    return bundled;
  } catch (e) {
    const err = e as Error & { path?: (string | number)[] | null; source?: string };
    const at = (refused !== undefined && origin.file !== undefined ? refAt(doc.data, path.dirname(path.resolve(origin.file)), refused) : undefined) ?? firstExternalRef(doc.data) ?? '#';
    const where = doc.locate(at);
    const message = (err.message || String(e)).replace(/\s+/g, ' ').trim();
    diags.push({ severity: 'error', message: `cannot resolve an external $ref: ${message}`, file: origin.display, pointer: at, line: where?.line, column: where?.column });
    return undefined;
  }
}

/** The real path of `dir` (itself when it cannot be resolved). */
function realFolder(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

/** Whether `file` (absolute) is under `folder` (a real path): by its real path when it exists, else as written. */
function insideFolder(folder: string, file: string): boolean {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    real = path.join(realFolder(path.dirname(file)), path.basename(file)); // it does not exist: reading it fails with its own message
  }
  const rel = path.relative(folder, real);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The pointer of the spec's own `$ref` that names `target` (a file, resolved against `dir`), if one does. */
function refAt(data: unknown, dir: string, target: string): string | undefined {
  for (const { at, ref } of externalRefs(data)) {
    if (isUrl(ref)) continue;
    const file = ref.split('#')[0];
    const local = file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file;
    if (path.resolve(dir, local) === target) return pointerOf([...at, '$ref']);
  }
  return undefined;
}
