// Runs Turn source through the real pipeline (loader, analyzer, compiler, VM) with the CLI's
// effect host (performTool) and a knowledge store in a temporary folder, so a test can play several
// runs against one store. Models: the mock, or a script fixture (docs/inference.md).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadProgram } from '../../runtime/load.js';
import { compileBundle } from '../../runtime/compile/index.js';
import { VM, type RunOptions, type RunOutcome } from '../../runtime/vm/index.js';
import { capabilitiesFromFlags, newUsage, type CapabilityFlags } from '../../runtime/effects/capabilities.js';
import { performTool } from '../../runtime/effects/host.js';
import { EnvVault } from '../../runtime/effects/vault.js';
import type { EffectToolContext } from '../../runtime/effects/tools.js';
import { createModel } from '../../runtime/run/model.js';
import { lazyKnowledge, type LazyKnowledge } from '../../runtime/knowledge/open.js';
import type { ToolRequest } from '../../runtime/vm/host-tools.js';

export function tempDir(prefix = 'turn-kb-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface KbRun {
  outcome: RunOutcome;
  lines: string[];
  tools: ToolRequest[];
  vm: VM;
  knowledge: LazyKnowledge;
}

export interface KbRunOptions extends RunOptions {
  /** the store folder (shared by runs of one test) */
  dir: string;
  runId: string;
  /** `mock` (default) or a script fixture: its replies as a JSON value */
  script?: unknown;
  /** the run's capabilities; write access to the store folder is always added */
  flags?: CapabilityFlags;
  /** called with each output line as it is printed */
  onLine?: (line: string) => void;
  /** files (relative path → content) written beside the program, e.g. modules it uses */
  files?: Record<string, string>;
}

let counter = 0;

export async function runKb(source: string, options: KbRunOptions): Promise<KbRun> {
  const work = path.join(options.dir, `prog${counter++}`);
  fs.mkdirSync(work, { recursive: true });
  for (const [name, content] of Object.entries(options.files ?? {})) fs.writeFileSync(path.join(work, name), content);
  const file = path.join(work, 'main.tn');
  fs.writeFileSync(file, source);
  const loaded = await loadProgram(file);
  const errors = loaded.diagnostics.filter((d) => d.diagnostic.severity === 'error');
  assert.deepEqual(errors.map((d) => `${d.file.path}:${d.diagnostic.message}`), [], 'the program compiles');
  let spec = 'mock';
  if (options.script !== undefined) {
    const fixture = path.join(work, 'replies.json');
    fs.writeFileSync(fixture, JSON.stringify(options.script, null, 2));
    spec = `script:${fixture}`;
  }
  const model = createModel(spec);
  const store = path.join(options.dir, 'store');
  const knowledge = lazyKnowledge({ dir: store, runId: options.runId });
  // std/knowledge needs write access to the store's folder (docs/authority.md): granted here
  const flags = { ...options.flags, allowWrite: [...(options.flags?.allowWrite ?? []), store] };
  const ctx: EffectToolContext = {
    vault: new EnvVault(),
    capabilities: capabilitiesFromFlags(flags, work),
    usage: newUsage(),
    cwd: work,
    knowledge: knowledge.session,
  };
  const lines: string[] = [];
  const tools: ToolRequest[] = [];
  const vm = new VM(
    compileBundle(loaded.units, loaded.entryPath),
    {
      output: (l) => (lines.push(l), options.onLine?.(l)),
      infer: (r, io) => model.infer(r, io),
      tool: (request) => (tools.push(request), performTool(ctx, request)),
    },
    options,
  );
  try {
    const outcome = await vm.run();
    return { outcome, lines, tools, vm, knowledge };
  } finally {
    knowledge.close();
  }
}

/** The run's result as plain JSON; fails the test with the run's error otherwise. */
export function resultOf(run: KbRun): any {
  if (!run.outcome.ok) assert.fail(`the run failed: ${run.outcome.error.message} (line ${run.outcome.error.line})\n${run.lines.join('\n')}`);
  return run.outcome.json;
}
