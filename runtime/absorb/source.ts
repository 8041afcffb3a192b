// Loading a spec (file or URL with an on-disk cache) and parsing JSON/YAML with positions, so a
// diagnostic can name a JSON pointer and the line/column it is at.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { selfPathReason } from '../effects/fs.js';
import { LineCounter, parseDocument, isMap, isSeq, isScalar, isPair, type Node as YamlNode } from 'yaml';
import type { AbsorbOptions, SpecDiagnostic } from './types.js';

export interface LoadedSource {
  text: string;
  /** For diagnostics: the file path or the URL. */
  display: string;
  /** The path used to guess the format (the file, or the URL's path). */
  formatHint: string;
  file?: string;
  url?: string;
  cached?: boolean;
}

const MAX_SPEC_BYTES = 20 * 1024 * 1024;

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export function cacheFileFor(cacheDir: string, url: string): string {
  return path.join(cacheDir, createHash('sha256').update(url).digest('hex') + '.spec');
}

/** Reads a file (relative to baseDir) or a URL (through options.fetch, cached). Never throws. */
export async function loadSource(source: string, baseDir: string, options: AbsorbOptions, diags: SpecDiagnostic[]): Promise<LoadedSource | undefined> {
  if (isUrl(source)) return loadUrl(source, options, diags);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    diags.push({ severity: 'error', message: `unsupported URL scheme in "${source}" (use http, https or a file path)`, file: source });
    return undefined;
  }
  const file = path.resolve(baseDir, source);
  try {
    // compile-time reads never reach the run's secrets: this process's /proc entries are not specs
    const own = selfPathReason(await fs.promises.realpath(file).catch(() => file));
    if (own) {
      diags.push({ severity: 'error', message: `not a spec: ${own}`, file });
      return undefined;
    }
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) throw Object.assign(new Error(), { code: 'EISDIR' });
    if (stat.size > MAX_SPEC_BYTES) {
      diags.push({ severity: 'error', message: `the spec is larger than ${MAX_SPEC_BYTES} bytes`, file });
      return undefined;
    }
    const buf = await fs.promises.readFile(file);
    if (buf.includes(0)) {
      diags.push({ severity: 'error', message: 'the spec is a binary file', file });
      return undefined;
    }
    return { text: buf.toString('utf8').replace(/^\uFEFF/, ''), display: file, formatHint: file, file };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is not a file' : `cannot be read (${code ?? (e as Error).message})`;
    diags.push({ severity: 'error', message: `the spec ${file} ${why}`, file });
    return undefined;
  }
}

async function loadUrl(url: string, options: AbsorbOptions, diags: SpecDiagnostic[]): Promise<LoadedSource | undefined> {
  const cacheFile = cacheFileFor(options.cacheDir, url);
  const formatHint = (() => {
    try {
      return new URL(url).pathname;
    } catch {
      return url;
    }
  })();
  const cached = (): string | undefined => {
    try {
      return fs.readFileSync(cacheFile, 'utf8');
    } catch {
      return undefined;
    }
  };
  if (!options.refresh) {
    const text = cached();
    if (text !== undefined) return { text, display: url, formatHint, url, file: cacheFile, cached: true };
  }
  if (!options.fetch) {
    diags.push({ severity: 'error', message: `${url} is not cached and fetching is not available here`, file: url });
    return undefined;
  }
  try {
    const res = await options.fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 15_000), headers: { accept: 'application/json, application/yaml, text/yaml, */*' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const text = await res.text();
    if (text.length > MAX_SPEC_BYTES) throw new Error(`larger than ${MAX_SPEC_BYTES} bytes`);
    fs.mkdirSync(options.cacheDir, { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, cacheFile);
    fs.writeFileSync(cacheFile.replace(/\.spec$/, '.json'), JSON.stringify({ url, fetchedAt: new Date().toISOString() }) + '\n');
    return { text, display: url, formatHint, url, file: cacheFile, cached: false };
  } catch (e) {
    const err = e as Error;
    const why = err.name === 'TimeoutError' ? 'timed out' : err.message;
    const old = cached();
    if (old !== undefined) {
      diags.push({ severity: 'warning', message: `could not refresh ${url} (${why}); using the cached copy`, file: url });
      return { text: old, display: url, formatHint, url, file: cacheFile, cached: true };
    }
    diags.push({ severity: 'error', message: `could not fetch ${url}: ${why}`, file: url });
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------

export interface SpecDoc {
  data: unknown;
  /** 1-based line/column of the value (or key, for the last segment) at `pointer`. */
  locate(pointer: string): { line: number; column: number } | undefined;
}

export function pointerSegments(pointer: string): string[] {
  const p = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (p === '' ) return [];
  return p.split('/').slice(1).map((s) => percentDecoded(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A pointer segment of a URI fragment, percent-decoded when that is well-formed (`%zz` is kept as written). */
function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function pointerOf(segments: (string | number)[]): string {
  return '#' + segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Parses JSON or YAML text. Syntax errors become diagnostics with positions; returns undefined then.
 * A document nested so deeply that a parser runs out of stack is one of those errors.
 */
export function parseSpecText(text: string, display: string, formatHint: string, diags: SpecDiagnostic[]): SpecDoc | undefined {
  try {
    return parseText(text, display, formatHint, diags);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    diags.push({ severity: 'error', message: 'the spec is nested too deeply to read', file: display, pointer: '#', line: 1, column: 1 });
    return undefined;
  }
}

function parseText(text: string, display: string, formatHint: string, diags: SpecDiagnostic[]): SpecDoc | undefined {
  const lineCounter = new LineCounter();
  const json = /\.json$/i.test(formatHint) || /^\s*[{[]/.test(text);
  let data: unknown;
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (json) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      const msg = (e as Error).message;
      const at = /position (\d+)/.exec(msg);
      const pos = at ? lineCounter.linePos(Number(at[1])) : undefined;
      const lc = pos ?? (doc.errors[0] ? lineCounter.linePos(doc.errors[0].pos[0]) : undefined);
      diags.push({ severity: 'error', message: `invalid JSON: ${msg.replace(/^JSON\.parse: /, '')}`, file: display, line: lc?.line, column: lc?.col });
      return undefined;
    }
  } else {
    if (doc.errors.length > 0) {
      for (const err of doc.errors.slice(0, 5)) {
        const lc = lineCounter.linePos(err.pos[0]);
        diags.push({ severity: 'error', message: `invalid YAML: ${err.message.split('\n')[0]}`, file: display, line: lc.line, column: lc.col });
      }
      return undefined;
    }
    try {
      data = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      diags.push({ severity: 'error', message: `invalid YAML: ${(e as Error).message}`, file: display });
      return undefined;
    }
  }
  const usable = doc.errors.length === 0;
  return {
    data,
    locate(pointer) {
      if (!usable) return undefined;
      let node: unknown = doc.contents;
      let offset: number | undefined = (node as YamlNode | null)?.range?.[0];
      const segs = pointerSegments(pointer);
      for (let i = 0; i < segs.length; i++) {
        const seg = segs[i];
        if (isMap(node)) {
          const pair = node.items.find((p) => isPair(p) && (isScalar(p.key) ? String(p.key.value) : String(p.key)) === seg);
          if (!pair) break;
          const keyNode = pair.key as YamlNode | null;
          const valNode = pair.value as YamlNode | null;
          offset = (i === segs.length - 1 ? keyNode?.range?.[0] : valNode?.range?.[0]) ?? keyNode?.range?.[0] ?? offset;
          node = pair.value;
        } else if (isSeq(node)) {
          const item = node.items[Number(seg)] as YamlNode | undefined;
          if (!item) break;
          offset = item.range?.[0] ?? offset;
          node = item;
        } else break;
      }
      if (offset === undefined) return undefined;
      const lc = lineCounter.linePos(offset);
      return { line: lc.line, column: lc.col };
    },
  };
}
