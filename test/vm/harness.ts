// Test helpers: parse Turn source (several virtual files for modules), compile and run it.
import type { UseExpr } from '../../runtime/syntax/ast.js';
import { parseSource } from '../../runtime/syntax/parse.js';
import { walk } from '../../runtime/syntax/walk.js';
import { compileBundle, type Bundle, type SourceUnit } from '../../runtime/compile/index.js';
import { runBundle, type Host, type RunOptions, type RunOutcome } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';

export type InferFn = Host['infer'];

/** Compiles `files[entry]` and every file it uses (`use "name"` names a key of `files`). */
export async function compileFiles(files: Record<string, string>, entry = 'main.tn'): Promise<Bundle> {
  const units: SourceUnit[] = [];
  const seen = new Set<string>();
  const load = async (path: string): Promise<void> => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = files[path];
    if (text === undefined) return;
    const { program, diagnostics, file } = await parseSource(path, text);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) throw new Error(`${path}: ${errors.map((d) => d.message).join('; ')}`);
    const uses = new Map<UseExpr, string>();
    const targets: string[] = [];
    walk(program, (n) => {
      if (n.kind === 'Use') {
        uses.set(n, n.path.value);
        targets.push(n.path.value);
      }
    });
    units.push({ path, file, program, uses });
    for (const t of targets) await load(t);
  };
  await load(entry);
  return compileBundle(units, entry);
}

export interface Run {
  outcome: RunOutcome;
  lines: string[];
  bundle: Bundle;
}

export async function run(
  source: string | Record<string, string>,
  opts: RunOptions & { infer?: InferFn } = {},
): Promise<Run> {
  const files = typeof source === 'string' ? { 'main.tn': source } : source;
  const bundle = await compileFiles(files);
  const lines: string[] = [];
  const outcome = await runBundle(
    bundle,
    {
      output: (l) => lines.push(l),
      infer: opts.infer ?? (async (r) => mockReply(r.schema)),
    },
    opts,
  );
  return { outcome, lines, bundle };
}

/** Runs and expects success; returns the echoed lines and the rendered result. */
export async function ok(source: string | Record<string, string>, opts: RunOptions & { infer?: InferFn } = {}) {
  const r = await run(source, opts);
  if (!r.outcome.ok) {
    const e = r.outcome.error;
    throw new Error(`expected success, got ${e.path}:${e.line}:${e.column}: ${e.message}`);
  }
  return { lines: r.lines, value: r.outcome.value, rendered: r.outcome.rendered, json: r.outcome.json };
}

/** Runs and expects a runtime failure; returns the error and the echoed lines. */
export async function fails(source: string | Record<string, string>, opts: RunOptions & { infer?: InferFn } = {}) {
  const r = await run(source, opts);
  if (r.outcome.ok) throw new Error(`expected failure, got ${r.outcome.rendered}`);
  return { error: r.outcome.error, lines: r.lines };
}
