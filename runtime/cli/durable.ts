// Durable runs on the command line (issue 5, docs/durability.md):
//   turn run FILE --store DIR | --durable   a run that journals every nondeterministic step
//   turn resume RUN [--store DIR] [--migrate]  continue it in this OS process (replay, then live)
//   turn runs [--store DIR] [--json]         the runs of a store with their status
//   turn inspect RUN [--store DIR] [--json]  processes, tiers, memory, mailboxes, open effects, journal tail
//   turn resolve RUN STEP --ok JSON | --error MESSAGE | --retry   settle an unknown outcome
// Exit codes: 0 done or suspended, 1 run-time error / store error / divergence, 2 compile error,
// 3 waiting for a decision about an unknown outcome, 64 usage.
import * as path from 'node:path';
import { checkSource } from '../check/index.js';
import { compileBundle, type SourceUnit } from '../compile/index.js';
import type { Bundle } from '../compile/bundle.js';
import { VM, render, type Host, type RunOutcome } from '../vm/index.js';
import { openStore, defaultStoreDir, decodeSnapshot, StoreError, type JournalEntry, type RunRecord, type RunStore } from '../store/index.js';
import {
  Durable, DivergenceError, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION, UnknownOutcomeError, bytesJson, jsonBytes, storeMessage,
} from '../durable/index.js';
import { AUTHORITY_OPTIONS } from './authority.js';
import { RUN_OPTIONS, hostFrom, type HostSetup, type Values } from './run-host.js';
import { EXIT, UsageError, loadChecked, numberOption, parse } from './main.js';

/** A durable run waits for a decision about an effect whose outcome is unknown. */
export const EXIT_WAITING = 3;

const STORE_OPTIONS = { store: { type: 'string' }, durable: { type: 'boolean' } } as const;

/** The options of `turn run` a resume reuses (the host's configuration; never a secret: names and paths only). */
const RECORDED = ['model', 'max-steps', 'seed', ...Object.keys(AUTHORITY_OPTIONS)];

function err(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : line + '\n');
}

function open(dir: string | undefined): RunStore {
  return openStore(dir !== undefined ? path.resolve(dir) : defaultStoreDir());
}

/** What a program's sources are stored as (`putBundle`): recompiled on resume and checked against the hash. */
interface StoredSources {
  format: 1;
  entryPath: string;
  units: { path: string; text: string }[];
}

async function compileStored(bytes: Uint8Array): Promise<{ bundle: Bundle } | { error: string }> {
  const stored = bytesJson(bytes) as StoredSources;
  const units: SourceUnit[] = [];
  for (const u of stored.units) {
    const r = await checkSource(u.path, u.text);
    if (r.diagnostics.some((d) => d.severity === 'error')) return { error: `the stored source ${u.path} no longer compiles with this Turn` };
    units.push({ path: u.path, file: r.file, program: r.program, uses: r.uses });
  }
  return { bundle: compileBundle(units, stored.entryPath) };
}

function sourcesOf(units: SourceUnit[], entryPath: string): Uint8Array {
  const s: StoredSources = { format: 1, entryPath, units: units.map((u) => ({ path: u.path, text: u.file.text })) };
  return jsonBytes(s);
}

function recordedArgs(values: Values): string[] {
  const out: string[] = [];
  for (const name of RECORDED) {
    const v = values[name];
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) {
      if (typeof x === 'boolean') out.push(`--${name}`);
      else out.push(`--${name}`, x);
    }
  }
  return out;
}

function withStore<T>(dir: string | undefined, f: (store: RunStore) => Promise<T>): Promise<T | number> {
  let store: RunStore;
  try {
    store = open(dir);
  } catch (e) {
    err(`turn: ${storeMessage(e)}`);
    return Promise.resolve(EXIT.runtimeError);
  }
  return f(store).then(
    (v) => {
      store.close();
      return v;
    },
    (e: unknown) => {
      try {
        store.close();
      } catch {
        // already closed or broken
      }
      if (e instanceof StoreError) {
        err(`turn: ${e.message}`);
        return EXIT.runtimeError;
      }
      throw e;
    },
  );
}

// ---------------------------------------------------------------------------------------------
// turn run --store

export async function durableRun(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...RUN_OPTIONS, ...STORE_OPTIONS });
  if (positionals.length !== 1) throw new UsageError(`\`turn run\` takes exactly one FILE, got ${positionals.length}`);
  const file = positionals[0];
  let runId: string | undefined; // std/knowledge writes under the durable run's id, set below
  const setup = await hostFrom(values, { knowledgeRunId: () => runId ?? 'unstarted' });
  if (typeof setup === 'number') return setup;
  const loaded = await loadChecked(file);
  if (typeof loaded === 'number') return loaded;
  const bundle = compileBundle(loaded.units, loaded.entryPath);
  return withStore(values.store as string | undefined, async (store) => {
    store.putBundle(bundle.version, sourcesOf(loaded.units, loaded.entryPath));
    const run = store.createRun({
      entry: file,
      bytecodeHash: bundle.version,
      semanticsVersion: SEMANTICS_VERSION,
      policies: POLICY_VERSIONS,
      meta: { args: recordedArgs(values), cwd: process.cwd(), pid: process.pid },
    });
    runId = run.id;
    err(`turn: run ${run.id} (store ${store.info().file})`);
    return execute(store, run, bundle, setup, []);
  });
}

/** Runs (or re-executes) a durable run until it ends, suspends or stops. */
async function execute(store: RunStore, run: RunRecord, bundle: Bundle, setup: HostSetup, entries: JournalEntry[]): Promise<number> {
  // Output is not journaled: what the replayed part of the run printed is not printed again.
  let durable: Durable | undefined;
  const host: Host = { ...setup.host, output: (line) => durable!.output(setup.host, line) };
  const vm = new VM(bundle, host, { maxSteps: setup.maxSteps, seed: setup.seed, inferRetries: setup.inferRetries });
  durable = new Durable(vm, run, new JournalWriter(store, run.id), entries);
  vm.durable = durable;
  const result = await Promise.race([vm.run().then((outcome) => ({ kind: 'ended' as const, outcome })), durable.stopped]);
  if (result.kind === 'suspended') await durable.drain();
  setup.close();
  await setup.stdout.flush();
  const stop = result.kind === 'ended' && durable.stoppedNow ? await durable.stopped : result;
  if (stop.kind === 'suspended') {
    store.setRunStatus(run.id, 'suspended');
    err(`suspended: ${run.id}`);
    return EXIT.ok;
  }
  if (stop.kind === 'fatal') {
    const e = stop.error;
    if (e instanceof UnknownOutcomeError) {
      store.setRunStatus(run.id, 'waiting');
      reportWaiting(run.id, [e.entry]);
      return EXIT_WAITING;
    }
    err(`turn: ${e instanceof DivergenceError ? '' : 'the run stopped: '}${setup.redact(storeMessage(e))}`);
    if (!(e instanceof StoreError)) trySetStatus(store, run.id, 'failed', jsonBytes({ message: e.message }));
    return EXIT.runtimeError;
  }
  const outcome: RunOutcome = stop.outcome;
  const leftover = durable.leftover();
  if (leftover.length > 0) {
    const e = leftover[0];
    err(`turn: replay diverged: the program ended, but the journal holds ${leftover.length} more step(s), the first being step ${e.seq} (${e.kind} \`${e.name}\`); the program or its inputs changed since the run started`);
    return EXIT.runtimeError;
  }
  if (!outcome.ok) {
    const { error } = outcome;
    let text = `${error.path}:${error.line}:${error.column}: runtime error: ${setup.redact(error.message)}\n`;
    for (const frame of error.stack.slice(1)) text += `    at ${frame.fn} (${frame.path}:${frame.line}:${frame.column})\n`;
    process.stderr.write(text);
    trySetStatus(store, run.id, 'failed', jsonBytes({ message: error.message, path: error.path, line: error.line, column: error.column }));
    return EXIT.runtimeError;
  }
  store.setRunStatus(run.id, 'done', jsonBytes({ rendered: outcome.rendered, json: outcome.json ?? null }));
  if (setup.json) {
    setup.stdout.write(setup.redact(JSON.stringify(outcome.json ?? null)));
    await setup.stdout.flush();
  }
  return EXIT.ok;
}

function trySetStatus(store: RunStore, id: string, status: 'failed', result: Uint8Array): void {
  try {
    store.setRunStatus(id, status, result);
  } catch (e) {
    err(`turn: ${storeMessage(e)}`);
  }
}

function reportWaiting(runId: string, entries: JournalEntry[]): void {
  for (const e of entries) {
    err(`unknown: step ${e.seq} (${e.kind} \`${e.name}\`, idempotency key ${e.idempotencyKey}) started but its outcome was not recorded; it is not idempotent, so it is not re-run`);
  }
  err(`settle it with: turn resolve ${runId} STEP --ok JSON | --error MESSAGE | --retry`);
  err(`waiting: ${runId}`);
}

// ---------------------------------------------------------------------------------------------
// resume, runs, inspect, resolve

export async function durableCommand(command: string, args: string[]): Promise<number> {
  switch (command) {
    case 'resume':
      return resume(args);
    case 'runs':
      return runs(args);
    case 'inspect':
      return inspectCommand(args);
    default:
      return resolve(args);
  }
}

function runArg(positionals: string[], command: string, n = 1): string[] {
  if (positionals.length !== n) throw new UsageError(`\`turn ${command}\` takes ${n === 1 ? 'a RUN id' : 'RUN and STEP'}, got ${positionals.length} argument(s)`);
  return positionals;
}

function getRun(store: RunStore, id: string): RunRecord {
  const run = store.getRun(id);
  if (!run) throw new StoreError('not_found', `no run ${id} in the store ${store.info().file}`);
  return run;
}

/** The bytecode hash a run runs now: its first one, or the last it migrated to. */
function currentHash(run: RunRecord, entries: JournalEntry[]): string {
  let hash = run.bytecodeHash;
  for (const e of entries) if (e.kind === 'migrate' && e.status === 'ok') hash = (bytesJson(e.payload) as { to: string }).to;
  return hash;
}

async function resume(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...RUN_OPTIONS, store: { type: 'string' }, migrate: { type: 'boolean' } });
  const [id] = runArg(positionals, 'resume');
  return withStore(values.store as string | undefined, async (store) => {
    const run = getRun(store, id);
    if (run.status === 'done') {
      const r = bytesJson(run.result) as { json: unknown } | null;
      err(`turn: run ${id} is already done`);
      if (values.json) process.stdout.write(JSON.stringify(r?.json ?? null) + '\n');
      return EXIT.ok;
    }
    if (run.status === 'failed' || run.status === 'cancelled') {
      const r = bytesJson(run.result) as { message?: string } | null;
      err(`turn: run ${id} has ${run.status}${r?.message ? `: ${r.message}` : ''}`);
      return EXIT.runtimeError;
    }
    if (run.semanticsVersion !== SEMANTICS_VERSION) {
      err(`turn: run ${id} was started by a VM with semantics ${run.semanticsVersion}; this Turn speaks ${SEMANTICS_VERSION} and cannot resume it`);
      return EXIT.runtimeError;
    }
    // the host's configuration the run started with, then what this command adds or overrides
    const recorded = parse([...((run.meta.args as string[] | undefined) ?? []), ...recordedArgs(values)], RUN_OPTIONS).values;
    const setup = await hostFrom({ ...recorded, json: values.json }, { knowledgeRunId: () => id });
    if (typeof setup === 'number') return setup;

    // Unknown outcomes first: an effect that started and whose result was not recorded.
    const unknown = store.markUnknownOnRecovery(id);
    let entries = store.readJournal(id);
    const retried = new Set(entries.filter((e) => e.kind === 'decision').map((e) => (bytesJson(e.payload) as { seq: number }).seq));
    const blocking = unknown.filter((e) => !e.idempotent && !retried.has(e.seq));
    if (blocking.length > 0) {
      store.setRunStatus(id, 'waiting');
      reportWaiting(id, blocking);
      return EXIT_WAITING;
    }

    let hash = currentHash(run, entries);
    if (values.migrate) {
      if (run.status !== 'suspended' && run.status !== 'waiting') {
        err(`turn: run ${id} is ${run.status}: a run moves to new code only at a wait point (suspended or waiting)`);
        return EXIT.runtimeError;
      }
      const loaded = await loadChecked(path.resolve(String(run.meta.cwd ?? process.cwd()), run.entry));
      if (typeof loaded === 'number') return loaded;
      const fresh = compileBundle(loaded.units, loaded.entryPath);
      if (fresh.version !== hash) {
        store.putBundle(fresh.version, sourcesOf(loaded.units, loaded.entryPath));
        const n = entries.filter((e) => e.kind === 'migrate').length + 1;
        store.appendJournal(id, { kind: 'migrate', name: 'bytecode', status: 'ok', idempotencyKey: `turn:${id}:m${n}`, payload: jsonBytes({ from: hash, to: fresh.version }) });
        err(`turn: run ${id} moves from bytecode ${hash.slice(0, 12)} to ${fresh.version.slice(0, 12)} (journaled)`);
        hash = fresh.version;
        entries = store.readJournal(id);
      }
    }
    const bytes = store.getBundle(hash);
    if (!bytes) {
      err(`turn: the store has no bytecode ${hash} for run ${id}`);
      return EXIT.runtimeError;
    }
    const compiled = await compileStored(bytes);
    if ('error' in compiled) {
      err(`turn: ${compiled.error}`);
      return EXIT.compileError;
    }
    if (compiled.bundle.version !== hash) {
      err(`turn: run ${id} started with bytecode ${hash.slice(0, 12)}, but this Turn compiles its stored sources to ${compiled.bundle.version.slice(0, 12)}; resume it with the Turn that started it, or move it with --migrate`);
      return EXIT.runtimeError;
    }
    store.setRunStatus(id, 'running');
    return execute(store, run, compiled.bundle, setup, entries);
  });
}

async function runs(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { store: { type: 'string' }, json: { type: 'boolean' }, status: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('`turn runs` takes no arguments');
  return withStore(values.store as string | undefined, async (store) => {
    const list = store.listRuns(values.status ? { status: values.status as never } : undefined);
    if (values.json) {
      for (const r of list) {
        process.stdout.write(JSON.stringify({ id: r.id, status: r.status, entry: r.entry, createdAt: r.createdAt, updatedAt: r.updatedAt, bytecodeHash: r.bytecodeHash, semanticsVersion: r.semanticsVersion }) + '\n');
      }
      return EXIT.ok;
    }
    if (list.length === 0) {
      process.stdout.write('no runs\n');
      return EXIT.ok;
    }
    for (const r of list) {
      const open = store.readJournal(r.id).filter((e) => e.status === 'intent' || e.status === 'unknown').length;
      process.stdout.write(`${r.id}  ${r.status.padEnd(9)}  ${new Date(r.updatedAt).toISOString()}  ${r.entry}${open ? `  (${open} open effect${open === 1 ? '' : 's'})` : ''}\n`);
    }
    return EXIT.ok;
  });
}

function clip(s: string, n = 100): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

function payloadText(b: Uint8Array | null): string {
  if (b === null) return '';
  try {
    return clip(JSON.stringify(bytesJson(b)));
  } catch {
    return `${b.length} bytes`;
  }
}

async function inspectCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { store: { type: 'string' }, json: { type: 'boolean' }, tail: { type: 'string' } });
  const [id] = runArg(positionals, 'inspect');
  const tail = numberOption(values.tail, 'tail') ?? 20;
  return withStore(values.store as string | undefined, async (store) => {
    const run = getRun(store, id);
    const entries = store.readJournal(id);
    const snap = store.latestSnapshot(id);
    const out: string[] = [];
    out.push(`run ${run.id}  ${run.status}  ${run.entry}`);
    out.push(`  bytecode ${currentHash(run, entries).slice(0, 16)} (started with ${run.bytecodeHash.slice(0, 16)})  semantics ${run.semanticsVersion}  policies ${JSON.stringify(run.policies)}`);
    out.push(`  journal ${entries.length} entries  created ${new Date(run.createdAt).toISOString()}  updated ${new Date(run.updatedAt).toISOString()}`);
    if (run.result) out.push(`  result ${payloadText(run.result)}`);
    if (snap) {
      try {
        const data = decodeSnapshot(snap.bytes);
        out.push(`processes (snapshot at journal step ${snap.seq}):`);
        for (const p of data.processes) {
          const st = p.state as Record<string, unknown>;
          out.push(`  pid ${p.pid}  ${st.status}${st.waiting ? ` (waiting: ${st.waiting})` : ''}${st.effect ? ` (effect: ${JSON.stringify(st.effect)})` : ''}  parent ${st.parent}  frames ${(st.frames as unknown[]).length}`);
          const c = p.context;
          out.push(`    context P0 ${c.system.length} / P2 ${c.episodic.length} / P1 ${c.working.length} entries (budgets working ${c.limits.working}, episodic ${c.limits.episodic} tokens)`);
          for (const [tier, list] of [['P0', c.system], ['P2', c.episodic], ['P1', c.working]] as const) for (const x of list.slice(-5)) out.push(`      ${tier} ${clip(x, 90)}`);
          out.push(`    memory ${p.memory.size} entr${p.memory.size === 1 ? 'y' : 'ies'}`);
          for (const [k, v] of [...p.memory].slice(0, 20)) out.push(`      ${clip(k, 40)} = ${clip(render(v), 80)}`);
          out.push(`    mailbox ${p.mailbox.length} message(s)`);
          for (const m of p.mailbox.slice(0, 10)) out.push(`      ${clip(render(m), 100)}`);
        }
      } catch (e) {
        out.push(`processes: the latest snapshot does not decode (${(e as Error).message}); the journal alone is the truth`);
      }
    } else out.push('processes: no snapshot yet (one is taken at `suspend;`)');
    const open = entries.filter((e) => e.status === 'intent' || e.status === 'unknown');
    out.push(`pending and unknown effects: ${open.length === 0 ? 'none' : ''}`);
    for (const e of open) out.push(`  step ${e.seq}  ${e.status}  ${e.kind} ${e.name}  ${e.idempotent ? 'idempotent' : 'not idempotent'}  key ${e.idempotencyKey}  request ${payloadText(e.request)}`);
    out.push(`journal (last ${Math.min(tail, entries.length)} of ${entries.length}):`);
    for (const e of entries.slice(-tail)) {
      out.push(`  ${String(e.seq).padStart(5)}  ${(e.idempotencyKey ?? '').replace(`turn:${id}:`, '').padEnd(8)} ${e.kind.padEnd(8)} ${e.name.padEnd(14)} ${e.status.padEnd(7)} ${payloadText(e.payload)}`);
    }
    if (values.json) {
      process.stdout.write(JSON.stringify({ run: { ...run, result: run.result ? bytesJson(run.result) : null }, open: open.map(entryJson), journal: entries.slice(-tail).map(entryJson) }) + '\n');
    } else process.stdout.write(out.join('\n') + '\n');
    return EXIT.ok;
  });
}

function entryJson(e: JournalEntry): Record<string, unknown> {
  const safe = (b: Uint8Array | null) => {
    try {
      return b === null ? null : bytesJson(b);
    } catch {
      return `${b!.length} bytes`;
    }
  };
  return { seq: e.seq, key: e.idempotencyKey, kind: e.kind, name: e.name, pid: e.pid, status: e.status, idempotent: e.idempotent, request: safe(e.request), payload: safe(e.payload) };
}

async function resolve(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { store: { type: 'string' }, ok: { type: 'string' }, error: { type: 'string' }, retry: { type: 'boolean' } });
  const [id, stepText] = runArg(positionals, 'resolve', 2);
  const chosen = [values.ok !== undefined, values.error !== undefined, values.retry === true].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('`turn resolve RUN STEP` needs exactly one of --ok JSON, --error MESSAGE, --retry');
  const seq = Number(stepText);
  if (!Number.isInteger(seq) || seq < 1) throw new UsageError(`STEP must be a journal step number, got \`${stepText}\``);
  let okValue: unknown;
  if (values.ok !== undefined) {
    try {
      okValue = JSON.parse(String(values.ok));
    } catch (e) {
      throw new UsageError(`--ok needs JSON: ${(e as Error).message}`);
    }
  }
  return withStore(values.store as string | undefined, async (store) => {
    getRun(store, id);
    store.markUnknownOnRecovery(id); // the store is ours, so no process runs this run: its intents are unknown
    const entry = store.readJournal(id, seq)[0];
    if (!entry || entry.seq !== seq) {
      err(`turn: run ${id} has no step ${seq}`);
      return EXIT.runtimeError;
    }
    if (entry.status !== 'unknown') {
      err(`turn: step ${seq} of run ${id} is ${entry.status}, not unknown: nothing to resolve`);
      return EXIT.runtimeError;
    }
    if (values.retry) {
      store.appendJournal(id, { kind: 'decision', name: 'retry', status: 'ok', idempotencyKey: `turn:${id}:d${seq}`, payload: jsonBytes({ seq, decision: 'retry' }) });
    } else if (values.error !== undefined) {
      store.completeJournal(id, seq, 'error', jsonBytes(String(values.error)));
    } else {
      store.completeJournal(id, seq, 'ok', jsonBytes(entry.kind === 'infer' ? { value: okValue } : okValue));
    }
    const journal = store.readJournal(id);
    const retried = new Set(journal.filter((e) => e.kind === 'decision').map((e) => (bytesJson(e.payload) as { seq: number }).seq));
    const still = journal.filter((e) => e.status === 'unknown' && !e.idempotent && !retried.has(e.seq));
    if (still.length === 0) store.setRunStatus(id, 'suspended');
    err(`resolved: step ${seq} of run ${id} (${values.retry ? 'retry with the same idempotency key' : values.error !== undefined ? 'error' : 'ok'})`);
    err(still.length === 0 ? `continue it with: turn resume ${id}` : `still unknown: steps ${still.map((e) => e.seq).join(', ')}`);
    return EXIT.ok;
  });
}
