// `turn submit FILE --restate URL [--wait] [--id RUN] [--spread] [run options]`: compiles FILE here, sends its
// sources and the run options to the Restate ingress, and prints the run id. With --wait it
// prints the program's output and result and exits as `turn run` would. With --spread, the run's
// children may be placed on other workers (docs/scale-out.md, "what runs where").
import packageJson from '../package.json';
import {
  RestateError, RunSetupError, SEMANTICS_VERSION, compileProgram, defaultAdminUrl, inspectRestateRun, knownSecretsRedactor, listRestateRuns, newRestateRunId, resolveRestateRun,
  resumeRestateRun, runStatus, sourcesOf, submitRun, waitForRun, type RunInspection, type RunSummary,
} from '../runtime/index.js';
import { printSetupError } from './report.js';
import { COMMANDS } from './commands.js';
import { runOptionsFrom } from './run-options.js';
import { resolution } from './resolution.js';
import { EXIT, UsageError, err, numberOption, parse, singleFile } from './usage.js';

export async function submitCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.submit.options, 'submit');
  const file = singleFile(positionals, 'submit');
  const ingress = values.restate;
  if (ingress === undefined) throw new UsageError('`turn submit` needs --restate URL (the Restate ingress, e.g. http://127.0.0.1:8080)');
  if (values.trace || values['trace-file'] !== undefined) throw new UsageError('--trace is not available for a run on Restate (its events happen on the worker)');
  const options = runOptionsFrom(values);
  const model = options.model ?? process.env.TURN_MODEL;
  let code;
  try {
    code = await compileProgram(file, options);
  } catch (e) {
    if (e instanceof RunSetupError) return printSetupError(e);
    throw e;
  }
  printSetupError(undefined, code.diagnostics);
  const id = values.id ?? newRestateRunId();
  const { refreshSchemas: _r, fetchSchemas: _f, ...recorded } = options;
  try {
    await submitRun(ingress, id, {
      entry: file,
      sources: Buffer.from(sourcesOf(code.units, code.entryPath)).toString('base64'),
      bytecodeHash: code.bundle.version,
      semanticsVersion: SEMANTICS_VERSION,
      turnVersion: packageJson.version,
      options: { ...recorded, ...(model !== undefined ? { model } : {}) },
      ...(values.spread ? { spread: true } : {}),
    });
  } catch (e) {
    if (e instanceof RestateError) {
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
    }
    throw e;
  }
  err(`turn: run ${id} (restate ${new URL(ingress).origin})`);
  if (!values.wait) {
    process.stdout.write(id + '\n');
    return EXIT.ok;
  }
  let s: RunSummary;
  try {
    s = await waitForRun(ingress, id);
  } catch (e) {
    if (e instanceof RestateError) {
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
    }
    throw e;
  }
  return reportSummary(s, values.json === true);
}

/** Prints what a run on Restate printed and how it stands, with `turn run`'s exit codes (the secrets known here redacted, as `turn run` does). */
export async function reportSummary(summary: RunSummary, json: boolean): Promise<number> {
  const s = (await knownSecretsRedactor()).redactDeep(summary);
  for (const line of s.output) process.stdout.write(line + '\n');
  const result = (s.result ?? {}) as { json?: unknown; message?: string; path?: string; line?: number; column?: number };
  switch (s.status) {
    case 'done':
      if (json) process.stdout.write(JSON.stringify(result.json ?? null) + '\n');
      return EXIT.ok;
    case 'suspended':
      err(`suspended: ${s.id}`);
      return EXIT.ok;
    case 'waiting':
      for (const seq of s.wait?.unknown ?? []) {
        err(`unknown: step ${seq} of run ${s.id}; settle it with: turn resolve ${s.id} ${seq} --ok JSON | --error MESSAGE | --retry --restate URL`);
      }
      err(`waiting: ${s.id}`);
      return EXIT.waiting;
    default:
      err(result.path ? `${result.path}:${result.line}:${result.column}: runtime error: ${result.message}` : `turn: run ${s.id} ${s.status}: ${result.message ?? ''}`);
      return EXIT.runtimeError;
  }
}

/** `turn resume|runs|inspect|resolve ... --restate URL [--restate-admin ADMIN_URL]`. */
export async function restateCommand(command: string, args: string[], inspectionText: (i: RunInspection) => string): Promise<number> {
  const { values, positionals } = parse(args, {
    restate: { type: 'string' }, 'restate-admin': { type: 'string' }, json: { type: 'boolean' }, status: { type: 'string' }, tail: { type: 'string' },
    ok: { type: 'string' }, error: { type: 'string' }, retry: { type: 'boolean' },
  }, command);
  const ingress = values.restate!;
  const admin = values['restate-admin'] ?? defaultAdminUrl(ingress);
  const want = (n: number) => {
    if (positionals.length !== n) throw new UsageError(`\`turn ${command}\` takes ${n === 1 ? 'a RUN id' : n === 2 ? 'RUN and STEP' : 'no arguments'}, got ${positionals.length} argument(s)`);
  };
  try {
    switch (command) {
      case 'runs': {
        want(0);
        const rows = (await listRestateRuns(admin)).filter((r) => !values.status || r.status === values.status);
        if (values.json) for (const r of rows) process.stdout.write(JSON.stringify(r) + '\n');
        else if (rows.length === 0) process.stdout.write('no runs\n');
        else for (const r of rows) process.stdout.write(`${r.id}  ${r.status.padEnd(9)}  ${new Date(r.updatedAt).toISOString()}  ${r.entry}\n`);
        return EXIT.ok;
      }
      case 'inspect': {
        want(1);
        const tail = numberOption(values.tail, 'tail') ?? 20;
        const i = await inspectRestateRun(ingress, positionals[0], tail);
        const redactor = await knownSecretsRedactor();
        process.stdout.write((values.json ? JSON.stringify(redactor.redactDeep(i)) : redactor.redact(inspectionText(i))) + '\n');
        return EXIT.ok;
      }
      case 'resume': {
        want(1);
        const id = positionals[0];
        const before = await runStatus(ingress, id);
        if (before.status === 'done') {
          err(`turn: run ${id} is already done`);
          return EXIT.ok;
        }
        await resumeRestateRun(ingress, id);
        err(`turn: run ${id} resumed (it continues on a worker)`);
        const after = await waitForRun(ingress, id, 100, before.wait?.promise);
        return reportSummary({ ...after, output: after.output.slice(before.output.length) }, values.json === true);
      }
      default: {
        want(2);
        const [id, stepText] = positionals;
        const { seq, settlement, how } = resolution(stepText, values);
        await resolveRestateRun(ingress, id, { seq, ...settlement });
        err(`resolved: step ${seq} of run ${id} (${how}); it continues on a worker`);
        return EXIT.ok;
      }
    }
  } catch (e) {
    if (e instanceof RestateError) {
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
    }
    throw e;
  }
}
