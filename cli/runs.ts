// Durable runs on the command line (docs/durability.md):
//   turn resume RUN [--store DIR] [--migrate]  continue a run in this OS process (replay, then live)
//   turn runs [--store DIR] [--json]           the runs of a store with their status
//   turn inspect RUN [--store DIR] [--json]    processes, tiers, memory, mailboxes, open effects, journal tail
//   turn resolve RUN STEP --ok JSON | --error MESSAGE | --retry   settle an unknown outcome
// (`turn run --store` is in run.ts.) The logic is the runtime's (runtime/durable, runtime/run).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  bytesJson, defaultStoreDir, describeGrant, inferOptionsText, inspectRun, knownSecretsRedactor, storeMessage, openStore, STORE_FILE, resumeRun, RunSetupError, settleUnknown, ResumeRefused, StoreError, answerQuestion, openQuestions, checkAskAnswerText, describeAskType,
  type RunInspection, type RunStatus, type RunStore,
} from '../runtime/index.js';
import { reportInterrupted, withInterrupts } from './interrupt.js';
import { StdoutLines } from './output.js';
import { resolution } from './resolution.js';
import { printSetupError, reportResult } from './report.js';
import { priceTableFrom, printTokenSummary } from './tokens.js';
import { COMMANDS } from './commands.js';
import { runOptionsFrom } from './run-options.js';
import { EXIT, UsageError, err, numberOption, parse } from './usage.js';

/**
 * Opens the store (`--store DIR`, else the default), runs `f`, closes it; store errors exit 1.
 * These commands read or settle runs that exist: a folder without a store is not created (nor its
 * .gitignore); `none` says what that means for the command.
 */
async function withStore(dir: string | undefined, f: (store: RunStore) => Promise<number>, none: (folder: string) => number = noStore): Promise<number> {
  const folder = dir !== undefined ? path.resolve(dir) : defaultStoreDir();
  if (!fs.existsSync(path.join(folder, STORE_FILE))) return none(folder);
  let store: RunStore;
  try {
    store = openStore(folder);
  } catch (e) {
    err(`turn: ${storeMessage(e)}`);
    return EXIT.runtimeError;
  }
  try {
    return await f(store);
  } catch (e) {
    if (e instanceof StoreError || e instanceof ResumeRefused) {
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
    }
    if (e instanceof RunSetupError) return printSetupError(e);
    throw e;
  } finally {
    try {
      store.close();
    } catch {
      // already closed or broken
    }
  }
}

function noStore(folder: string): number {
  err(`turn: there is no Turn store in ${folder}, so no run to find there (check --store or $TURN_STORE_DIR)`);
  return EXIT.runtimeError;
}

export async function durableCommand(command: string, args: string[]): Promise<number> {
  // a run on Restate (docs/scale-out.md): the same commands against its ingress and admin API
  if (args.some((a) => a === '--restate' || a.startsWith('--restate='))) return (await import('./submit.js')).restateCommand(command, args, inspectionText);
  switch (command) {
    case 'resume':
      return resume(args);
    case 'runs':
      return runs(args);
    case 'inspect':
      return inspect(args);
    default:
      return resolve(args);
  }
}

function runArg(positionals: string[], command: string, n = 1): string[] {
  if (positionals.length !== n) throw new UsageError(`\`turn ${command}\` takes ${n === 1 ? 'a RUN id' : 'RUN and STEP'}, got ${positionals.length} argument(s)`);
  return positionals;
}

async function resume(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.resume.options, 'resume');
  const [id] = runArg(positionals, 'resume');
  const prices = priceTableFrom(values.prices);
  return withStore(values.store, async (store) => {
    // what the run started with is recorded in the store; the flags given here override it
    const stdout = new StdoutLines();
    let run;
    try {
      run = await resumeRun({
        ...runOptionsFrom(values), runId: id, store, migrate: values.migrate === true,
        onOutput: (line) => stdout.write(line), flushOutput: () => stdout.drain(), onNote: (text) => err(`turn: note: ${text}`),
      });
    } catch (e) {
      if (e instanceof RunSetupError && e.run?.status === 'done') {
        err(`turn: run ${id} is already done`);
        if (values.json) process.stdout.write(JSON.stringify((bytesJson(e.run.result) as { json?: unknown } | null)?.json ?? null) + '\n');
        return EXIT.ok;
      }
      throw e;
    }
    for (const note of run.notes) err(`turn: note: ${note}`);
    if (run.migration) err(`turn: run ${id} moves from bytecode ${run.migration.from.slice(0, 12)} to ${run.migration.to.slice(0, 12)} (journaled)`);
    const { value: result, signal } = await withInterrupts(run, () => run.start());
    if (signal !== undefined && result.kind === 'stopped') {
      await stdout.flush();
      printTokenSummary(run.tokens(), prices, values.json === true);
      return reportInterrupted(signal, run.id, values.store);
    }
    // before the run's last word, which scripts read as the last line (`suspended: ID`, the error)
    printTokenSummary(run.tokens(), prices, values.json === true);
    return reportResult(run, result, stdout, values.json === true);
  });
}

async function runs(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.runs.options, 'runs');
  if (positionals.length > 0) throw new UsageError('`turn runs` takes no arguments');
  return withStore(values.store, async (store) => {
    const list = store.listRuns(values.status ? { status: values.status as RunStatus } : undefined);
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
  }, (folder) => {
    if (values.json) return EXIT.ok;
    process.stdout.write(`no runs (there is no Turn store in ${folder})\n`);
    return EXIT.ok;
  });
}

function clip(s: string, n = 100): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : clip(typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)));

/** An infer step's own options (`with { seed: 7 }`), as written: `with {seed: 7}  `, or '' without any. */
function stepOptionsText(request: unknown): string {
  const shown = inferOptionsText(request && typeof request === 'object' ? (request as { options?: unknown }).options : undefined);
  return shown ? `${shown}  ` : '';
}

/** The text view of an inspection (`--json` prints the same structure as JSON). */
export function inspectionText(i: RunInspection): string {
  const { run } = i;
  const out: string[] = [];
  out.push(`run ${run.id}  ${run.status}  ${run.entry}`);
  out.push(`  bytecode ${run.currentBytecode.slice(0, 16)} (started with ${run.bytecodeHash.slice(0, 16)})  semantics ${run.semanticsVersion}  policies ${JSON.stringify(run.policies)}`);
  out.push(`  journal ${i.journalLength} entries  created ${new Date(run.createdAt).toISOString()}  updated ${new Date(run.updatedAt).toISOString()}`);
  if (run.result !== null) out.push(`  result ${text(run.result)}`);
  if (!i.snapshot) out.push('processes: no snapshot yet (one is taken at `suspend;`)');
  else if ('error' in i.snapshot) out.push(`processes: the latest snapshot does not decode (${i.snapshot.error}); the journal alone is the truth`);
  else {
    out.push(`processes (snapshot at journal step ${i.snapshot.seq}):`);
    for (const p of i.snapshot.processes) {
      out.push(`  pid ${p.pid}  ${p.status}${p.waiting ? ` (waiting: ${p.waiting})` : ''}${p.effect ? ` (effect: ${JSON.stringify(p.effect)})` : ''}  parent ${p.parent}  frames ${p.frames}`);
      const c = p.context;
      out.push(`    context P0 ${c.P0.length} / P2 ${c.P2.length} / P1 ${c.P1.length} entries (budgets working ${c.limits.working}, episodic ${c.limits.episodic} tokens)`);
      for (const [tier, list] of [['P0', c.P0], ['P2', c.P2], ['P1', c.P1]] as const) for (const x of list.slice(-5)) out.push(`      ${tier} ${clip(x, 90)}`);
      out.push(`    memory ${p.memory.length} entr${p.memory.length === 1 ? 'y' : 'ies'}`);
      for (const m of p.memory.slice(0, 20)) out.push(`      ${clip(m.key, 40)} = ${clip(m.value, 80)}`);
      out.push(`    mailbox ${p.mailbox.length} message(s)`);
      for (const m of p.mailbox.slice(0, 10)) out.push(`      ${clip(m, 100)}`);
    }
  }
  out.push(`pending and unknown effects: ${i.open.length === 0 ? 'none' : ''}`);
  for (const e of i.open) out.push(`  step ${e.seq}  ${e.status === 'decided' ? 'decided: runs again on resume (--retry)' : e.status}  ${e.kind} ${e.name}  ${e.idempotent ? 'idempotent' : 'not idempotent'}  key ${e.key}  request ${text(e.request)}`);
  out.push(`journal (last ${i.journal.length} of ${i.journalLength}):`);
  for (const e of i.journal) {
    const conf = e.confidence ? `confidence ${Math.round(e.confidence.value * 1000) / 1000} (${e.confidence.source}${e.confidence.calibration !== undefined ? `, calibrated from ${Math.round(e.confidence.raw! * 1000) / 1000} by map ${String(e.confidence.calibration).slice(0, 64)}` : ''})  ` : '';
    const opts = e.kind === 'infer' ? stepOptionsText(e.request) : '';
    out.push(`  ${String(e.seq).padStart(5)}  ${(e.step ?? '').padEnd(8)} ${e.kind.padEnd(8)} ${e.name.padEnd(14)} ${e.status.padEnd(7)} ${e.decision && e.status !== 'decided' ? `(settled: --${e.decision}) ` : ''}${opts}${conf}${text(e.payload)}`);
    if (e.grant) out.push(`${' '.repeat(17)}granted by ${describeGrant(e.grant)}`);
  }
  return out.join('\n');
}

async function inspect(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.inspect.options, 'inspect');
  const [id] = runArg(positionals, 'inspect');
  const tail = numberOption(values.tail, 'tail') ?? 20;
  return withStore(values.store, async (store) => {
    const inspection = inspectRun(store, id, tail);
    // values the program built from pieces are stored as they are: the secrets known here are redacted as they are shown
    const redactor = await knownSecretsRedactor();
    process.stdout.write((values.json ? JSON.stringify(redactor.redactDeep(inspection)) : redactor.redact(inspectionText(inspection))) + '\n');
    return EXIT.ok;
  });
}

async function resolve(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.resolve.options, 'resolve');
  const [id, stepText] = runArg(positionals, 'resolve', 2);
  const { seq, settlement, how } = resolution(stepText, values);
  return withStore(values.store, async (store) => {
    const { stillUnknown } = settleUnknown(store, id, seq, settlement);
    err(`resolved: step ${seq} of run ${id} (${how})`);
    err(stillUnknown.length === 0 ? `continue it with: turn resume ${id}` : `still unknown: steps ${stillUnknown.join(', ')}`);
    return EXIT.ok;
  });
}

/**
 * `turn answer RUN --value JSON [--step N]` (issue 43): answers the `ask T` a waiting run stopped at.
 * Without --value it lists the open questions. The value is checked against T before anything is
 * written; `turn resume RUN` then continues with it.
 */
export async function answerCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.answer.options, 'answer');
  const [id] = runArg(positionals, 'answer');
  const step = values.step === undefined ? undefined : numberOption(values.step, 'step');
  return withStore(values.store, async (store) => {
    if (values.value === undefined) {
      const open = await openQuestions(store, id);
      if (open.length === 0) err(`run ${id} waits on no question`);
      for (const q of open) err(`question: step ${q.seq} (ask ${q.typeName}): ${q.prompt}\n  expected: ${q.schema ? describeAskType(q.schema) : q.typeName}`);
      if (open.length > 0) err(`answer with: turn answer ${id} --value JSON${open.length > 1 ? ' --step N' : ''}`);
      return open.length > 0 ? EXIT.ok : EXIT.runtimeError;
    }
    // parsed within the answer's bounds (a huge or deep --value is refused before it is read)
    const parsed = checkAskAnswerText({}, values.value);
    if (!parsed.ok) throw new UsageError(`--value ${parsed.message}`);
    const { question, stillUnknown } = await answerQuestion(store, id, parsed.value, step);
    err(`answered: step ${question.seq} of run ${id} (ask ${question.typeName})`);
    err(stillUnknown.length === 0 ? `continue it with: turn resume ${id}` : `still waiting on: steps ${stillUnknown.join(', ')}`);
    return EXIT.ok;
  });
}
