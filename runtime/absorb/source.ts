// Loading a spec (file or URL with an on-disk cache) and parsing JSON/YAML with positions, so a
// diagnostic can name a JSON pointer and the line/column it is at.
import { sha256Hex } from '../hash.js';
import { writeFileAtomic } from '../fs-atomic.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { selfPathReason } from '../effects/fs.js';
import type { Node as YamlNode } from 'yaml';

type Yaml = typeof import('yaml');
let yamlModule: Yaml | undefined;
/** The YAML parser, required by the first spec read (this module is imported by every start of the CLI). */
function yaml(): Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (yamlModule ??= require('yaml') as Yaml);
}
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
  return path.join(cacheDir, sha256Hex(url) + '.spec');
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
    writeFileAtomic(cacheFile, text);
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
  const json = /\.json$/i.test(formatHint) || /^\s*[{[]/.test(text);
  if (json) {
    // JSON is parsed by JSON.parse and located by a scan of the text when a diagnostic asks:
    // reading a large spec (GitHub's is 13 MB) through the YAML parser takes most of its absorption
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      const msg = (e as Error).message;
      const at = /position (\d+)/.exec(msg);
      const { LineCounter, parseDocument } = yaml();
      const lineCounter = new LineCounter();
      const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
      const pos = at ? lineCounter.linePos(Number(at[1])) : undefined;
      const lc = pos ?? (doc.errors[0] ? lineCounter.linePos(doc.errors[0].pos[0]) : undefined);
      diags.push({ severity: 'error', message: `invalid JSON: ${msg.replace(/^JSON\.parse: /, '')}`, file: display, line: lc?.line, column: lc?.col });
      return undefined;
    }
    let lines: number[] | undefined;
    return {
      data,
      locate(pointer) {
        const offset = jsonOffset(text, pointerSegments(pointer));
        if (offset === undefined) return undefined;
        lines ??= lineStarts(text);
        let lo = 0;
        let hi = lines.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (lines[mid] <= offset) lo = mid;
          else hi = mid - 1;
        }
        return { line: lo + 1, column: offset - lines[lo] + 1 };
      },
    };
  }
  const { LineCounter, parseDocument, isMap, isSeq, isScalar, isPair } = yaml();
  const lineCounter = new LineCounter();
  let data: unknown;
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
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

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The offset in valid JSON `text` of the value at `segments` (of the key, for the last segment in an object), else the deepest one found. */
function jsonOffset(text: string, segments: string[]): number | undefined {
  const ws = (i: number) => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    return i;
  };
  const stringEnd = (i: number) => {
    for (i++; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') i++;
      else if (c === '"') return i + 1;
    }
    return i;
  };
  // the end of the value starting at i (iterative: any depth)
  const valueEnd = (i: number) => {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        i = stringEnd(i) - 1;
        if (depth === 0) return i + 1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return i + 1;
        if (depth < 0) return i;
      } else if (depth === 0 && (c === ',' || isSpace(c.charCodeAt(0)))) return i;
    }
    return i;
  };
  let pos = ws(0);
  for (let s = 0; s < segments.length; s++) {
    const seg = segments[s];
    const last = s === segments.length - 1;
    const open = text[pos];
    let found: number | undefined;
    let keyAt = pos;
    if (open === '{') {
      let i = ws(pos + 1);
      while (i < text.length && text[i] === '"') {
        keyAt = i;
        const end = stringEnd(i);
        const key = JSON.parse(text.slice(i, end)) as string;
        i = ws(ws(end) + 1); // past ':'
        if (key === seg) {
          found = i;
          break;
        }
        i = ws(valueEnd(i));
        if (text[i] === ',') i = ws(i + 1);
      }
    } else if (open === '[') {
      const index = Number(seg);
      if (!Number.isInteger(index) || index < 0) return pos;
      let i = ws(pos + 1);
      for (let k = 0; i < text.length && text[i] !== ']'; k++) {
        if (k === index) {
          found = i;
          keyAt = i;
          break;
        }
        i = ws(valueEnd(i));
        if (text[i] === ',') i = ws(i + 1);
      }
    }
    if (found === undefined) return pos;
    if (last) return keyAt;
    pos = found;
  }
  return pos;
}
