// One call of a served closure: a run of a two-line program that `use`s the served file and calls
// the entry with the arguments (parsed from JSON). The program is a file in this process's scratch
// folder, removed when the call ends; a folder a crashed `turn mcp` left is removed at the next
// start-up (sweepScratch). The caller's arguments never outlive their call on disk.
//
// A call is stopped when its request is cancelled (`notifications/cancelled`, or the client gone):
// `Run.stop` refuses every effect not yet sent and ends the program at its next safe point.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnString } from '../../absorb/module.js';
import { formatDiagnostic } from '../../diagnostics.js';
import { RunSetupError } from '../../run/errors.js';
import type { RunOptions } from '../../run/options.js';
import { resumeRun, startRun, type Run, type RunResult } from '../../run/run.js';
import type { McpCaller } from '../../ports/mcp-caller.js';
import type { RunStore } from '../../store/types.js';
import { processAlive } from '../../process-alive.js';

const PREFIX = 'turn-mcp-';

let scratch: string | undefined;
let counter = 0;

/** This process's scratch folder: `turn-mcp-<pid>-<random>` in the temporary folder, removed at exit. */
function scratchDir(): string {
  if (scratch === undefined) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
    const dir = scratch;
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

/**
 * Removes the scratch folders of `turn mcp` processes that are gone (killed before their exit
 * handler ran): ours by name and owner, of a pid that no longer runs. Returns how many it removed.
 */
export function sweepScratch(tmp = os.tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    const dir = path.join(tmp, name);
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

/** The calls' files now in this process's scratch folder (for tests: none between calls). */
export function scratchFiles(): string[] {
  return scratch === undefined ? [] : fs.readdirSync(scratch);
}

export interface CallSetup {
  /** the options of every call's run (capabilities, model, budgets) */
  options: RunOptions;
  /** each line the run prints, as it prints it */
  onLine?: (line: string) => void;
  /** the MCP client that made the request */
  caller?: McpCaller;
  /** aborted when the request is cancelled */
  signal?: AbortSignal;
  /** `turn mcp --store`: the call is a durable run in this store, recorded with `meta` (serve-next/served-runs.ts) */
  durable?: { store: RunStore; meta?: Record<string, unknown> };
}

/** A call's end: its value, or why it gave none (`suspended`: the durable run that waits, by its id). */
export type CallOutcome = { ok: true; value: unknown; printed: string[] } | { ok: false; message: string; printed: string[]; suspended?: string };

/** What a run's end says to the client when it gave no value. */
function failureOf(r: Exclude<RunResult, { kind: 'done' }>): string {
  switch (r.kind) {
    case 'failed': {
      // located in the served program (relative to the working folder); never at the call's own two-line program
      const { path: at, line, column, message } = r.error;
      return at && scratch !== undefined && !at.startsWith(scratch) ? `${path.relative(process.cwd(), at) || at}:${line}:${column}: ${message}` : message;
    }
    case 'suspended':
      return `the run suspended (run ${r.runId}); resume it with turn resume ${r.runId}`;
    case 'waiting':
      return `the run waits for a decision about an unknown outcome (run ${r.runId}); settle it with turn resolve`;
    case 'stopped':
      return `the run was stopped: ${r.reason}`;
    case 'aborted':
      return `the run was aborted: ${r.message}`;
  }
}

/** The run's options for a served call: nobody at the server's terminal can be asked. */
function servedOptions(setup: CallSetup, printed: string[]) {
  // standard input is the MCP connection: nobody can be asked, so an effect that needs approval is denied unless --approve all
  const authority = { ...setup.options.authority, approve: setup.options.authority?.approve ?? 'none' };
  return {
    ...setup.options,
    // nor is a server's question (elicitation) asked on it: only --answer or the refusal answer it
    askOnTerminal: false,
    authority,
    ...(setup.caller ? { mcpCaller: setup.caller } : {}),
    ...(setup.durable ? { store: setup.durable.store } : {}),
    onOutput: (line: string) => {
      printed.push(line);
      setup.onLine?.(line);
    },
  };
}

/** A run set up (or the reason it could not be), to its outcome: stopped when the request is cancelled. */
async function finish(start: () => Promise<Run>, setup: CallSetup, printed: string[]): Promise<CallOutcome> {
  let run: Run;
  try {
    run = await start();
  } catch (e) {
    if (e instanceof RunSetupError) {
      const d = e.diagnostics.find((x) => x.diagnostic.severity === 'error');
      return { ok: false, message: d ? formatDiagnostic(d.file, d.diagnostic) : e.message, printed };
    }
    throw e;
  }
  const stop = (): void => run.stop('the MCP client cancelled the call');
  if (setup.signal?.aborted) stop();
  setup.signal?.addEventListener('abort', stop, { once: true });
  try {
    const r = await run.start();
    // the program's value may hold a secret it rebuilt (pieces joined): redacted like its printed lines
    if (r.kind === 'done') return { ok: true, value: run.redactDeep(r.json), printed };
    return { ok: false, message: run.redact(failureOf(r)), printed, ...(r.kind === 'suspended' ? { suspended: r.runId } : {}) };
  } finally {
    setup.signal?.removeEventListener('abort', stop);
  }
}

/**
 * The two-line program of one call: `use`s the served file and calls entry `key` with `values`
 * (JSON, in parameter order; each passed as a JSON string the program parses, never as source).
 * `turn mcp` writes it to a scratch file; the editor runs it as the entry text of its run panel.
 */
export function callProgram(file: string, key: string, values: unknown[]): string {
  const args = values.map((v) => `call("json_parse", ${turnString(JSON.stringify(v ?? null))})`);
  return `let served = use ${turnString(path.resolve(file))};\nreturn served[${turnString(key)}](${args.join(', ')});\n`;
}

/** Runs entry `key` of `file` with `values` (JSON, in parameter order). Everything returned is redacted by the run. */
export async function callEntry(file: string, key: string, values: unknown[], setup: CallSetup): Promise<CallOutcome> {
  const program = path.join(scratchDir(), `call-${++counter}.tn`);
  const printed: string[] = [];
  try {
    fs.writeFileSync(program, callProgram(file, key, values), { mode: 0o600 });
    // a durable run keeps its compiled program in the store: the file is not needed to resume it
    return await finish(() => startRun({ ...servedOptions(setup, printed), file: program, ...(setup.durable?.meta ? { meta: setup.durable.meta } : {}) }), setup, printed);
  } finally {
    fs.rmSync(program, { force: true });
  }
}

/** Continues the durable served run `runId` (suspended, or cut short by a kill) from its journal. */
export function resumeEntry(runId: string, setup: CallSetup & { durable: { store: RunStore } }): Promise<CallOutcome> {
  const printed: string[] = [];
  return finish(() => resumeRun({ ...servedOptions(setup, printed), runId }), setup, printed);
}
