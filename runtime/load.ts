// Reading Turn source files and loading a program with every module it `use`s. Bad input — a
// missing file, a directory, binary data, a file too large — becomes an `InputError` whose message
// is ready to show a person; syntax and semantic problems become diagnostics per file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkParsed, checkSource, typedModuleUses, type CheckResult } from './check/index.js';
import { ModuleGraph } from './check/modules.js';
import { absorbSchemas } from './check/schemas.js';
import { cachedParse } from './syntax/parse-cache.js';
import type { SchemaFetching } from './check/schemas.js';
import type { SourceUnit } from './compile/index.js';
import type { Diagnostic } from './diagnostics.js';
import type { SourceFile } from './syntax/source.js';

/**
 * Larger sources are refused before parsing, with a message: tree-sitter (as WebAssembly) parses about
 * 2 MB/s here and the syntax tree of a 10 MB file takes over a gigabyte, while real programs are far
 * smaller; generated data belongs in a file the program reads, not in its source.
 */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

export class InputError extends Error {}

export function readSourceText(filePath: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(filePath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new InputError(`${filePath}: no such file`);
    if (code === 'EACCES') throw new InputError(`${filePath}: permission denied`);
    throw new InputError(`${filePath}: cannot read (${code ?? 'unknown error'})`);
  }
  if (stat.isDirectory()) throw new InputError(`${filePath}: is a directory, not a Turn source file`);
  if (!stat.isFile()) throw new InputError(`${filePath}: not a regular file`);
  if (stat.size > MAX_SOURCE_BYTES) {
    throw new InputError(`${filePath}: file is too large (${(stat.size / 1048576).toFixed(1)} MiB; the limit is ${MAX_SOURCE_BYTES / 1048576} MiB)`);
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(filePath);
  } catch (e) {
    throw new InputError(`${filePath}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  return decodeSource(filePath, bytes);
}

/** Decodes UTF-8 source, refusing binary content with the offset where it was found. */
export function decodeSource(filePath: string, bytes: Uint8Array): string {
  const nul = bytes.indexOf(0);
  if (nul !== -1) throw new InputError(`${filePath}: not a text file (binary data at byte ${nul})`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(`${filePath}: not a text file (invalid UTF-8 at byte ${firstInvalidUtf8(bytes)})`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Where decoding fails, for the message (the fatal decoder above is what decides validity). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i];
    const continuation = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (continuation < 0) return i;
    for (let k = 1; k <= continuation; k++) {
      if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    i += continuation + 1;
  }
  return bytes.length;
}

export interface FileDiagnostic {
  file: SourceFile;
  diagnostic: Diagnostic;
}

export interface LoadedProgram {
  entryPath: string;
  units: SourceUnit[];
  diagnostics: FileDiagnostic[];
}

/**
 * Loads the entry file and, transitively, every module it uses; each file is read and checked once.
 * A file's modules are checked before it (modules.ts), so its calls into them are typed; the
 * standard modules and the modules generated from absorbed schemas are checked as files of their own.
 * `entryText`, when given, is the entry's source instead of what the file holds (its path still
 * names it in messages and resolves its relative `use`s).
 */
export async function loadProgram(entryFile: string, schemaFetching: SchemaFetching = {}, entryText?: string): Promise<LoadedProgram> {
  const entryPath = path.resolve(entryFile);
  if (entryText !== undefined && Buffer.byteLength(entryText) > MAX_SOURCE_BYTES) throw new InputError(`${entryFile}: the program is too large (the limit is ${MAX_SOURCE_BYTES / 1048576} MiB)`);
  const shown = (abs: string) => (abs === entryPath ? entryFile : path.relative(process.cwd(), abs) || abs);
  const graph = new ModuleGraph(
    {
      read: async (abs) => {
        let text: string;
        try {
          // the entry's text as given (the playground's synthetic entry, runtime/playground/), else the file's
          text = abs === entryPath && entryText !== undefined ? entryText : readSourceText(shown(abs));
        } catch (e) {
          // the entry's own problem stops the load; a module's is reported at its `use`
          if (e instanceof InputError && abs !== entryPath) return { ok: false, message: e.message };
          throw e;
        }
        const parsed = await cachedParse(shown(abs), text);
        return { ok: true, file: parsed.file, program: parsed.program, syntax: parsed.diagnostics };
      },
      check: async (abs, parsed, context) => {
        const schemas = await absorbSchemas(shown(abs), parsed.program, schemaFetching);
        const result = checkParsed(shown(abs), parsed.file, parsed.program, parsed.syntax, schemas, context);
        return { exports: result.exports, result, file: result.file };
      },
      uses: (abs, program) => typedModuleUses(abs, program),
    },
    shown,
  );
  await graph.check(entryPath);
  const checked = new Map<string, CheckResult>();
  // the entry first, as the bundle has always listed it
  checked.set(entryPath, graph.checked.get(entryPath)!.result as CheckResult);
  for (const [abs, c] of graph.checked) checked.set(abs, c.result as CheckResult);
  // what the graph does not type: standard modules, generated schema modules
  const queue = [...checked.values()].flatMap((r) => [...r.uses.values()]);
  while (queue.length > 0) {
    const abs = queue.shift()!;
    if (checked.has(abs) || graph.unreadableMessage(abs) !== undefined) continue;
    const result = await checkSource(shown(abs), readSourceText(shown(abs)), schemaFetching);
    checked.set(abs, result);
    queue.push(...result.uses.values());
  }
  const units: SourceUnit[] = [];
  const diagnostics: FileDiagnostic[] = [];
  for (const [abs, result] of checked) {
    units.push({ path: abs, file: result.file, program: result.program, uses: result.uses });
    for (const d of result.diagnostics) diagnostics.push({ file: result.file, diagnostic: d });
  }
  return { entryPath, units, diagnostics };
}
