// `turn calibrate DATASET|TESTS [--model M] [--holdout SHARE] [--out FILE] [--json]` (docs/inference.md,
// *Calibration*): asks the model each labeled case, prints ECE, Brier and AUROC per confidence
// source before and after the fitted map, and writes the maps to the calibration file.
import { calibrate, CalibrationFileError, DatasetError, identityText, RunSetupError, type CalibrationReport } from '../runtime/index.js';
import { COMMANDS } from './commands.js';
import { printSetupError } from './report.js';
import { runOptionsFrom } from './run-options.js';
import { EXIT, UsageError, err, parse, singleFile } from './usage.js';

export async function calibrateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.calibrate.options, 'calibrate');
  const dataset = singleFile(positionals, 'calibrate');
  const { calibration, traceFile, ...run } = runOptionsFrom(values);
  if (calibration !== undefined) throw new UsageError('`turn calibrate` measures raw confidences: --calibration does not apply (--out names the file it writes)');
  if (traceFile !== undefined) throw new UsageError('`turn calibrate` does not write a trace');
  const holdout = values.holdout === undefined ? 0 : Number(values.holdout);
  if (!(holdout >= 0 && holdout <= 0.9)) throw new UsageError(`--holdout needs a share from 0 to 0.9, got ${values.holdout}`);
  const progress = process.stderr.isTTY === true && values.json !== true;
  let report: CalibrationReport;
  try {
    report = await calibrate({
      ...run,
      dataset,
      holdout,
      ...(values['dry-run'] ? { out: false as const } : values.out !== undefined ? { out: values.out } : {}),
      ...(progress ? { onCase: (done: number, total: number) => process.stderr.write(`\rturn calibrate: case ${done} of ${total}`) } : {}),
    });
  } catch (e) {
    if (progress) process.stderr.write('\n');
    if (e instanceof DatasetError || e instanceof CalibrationFileError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    if (e instanceof RunSetupError) return printSetupError(e);
    throw e;
  }
  if (progress) process.stderr.write('\n');
  if (report.stopped) err(`turn: warning: ${report.stopped}`);
  process.stdout.write(values.json ? JSON.stringify(report) + '\n' : reportTable(report));
  return EXIT.ok;
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : x.toFixed(3));

export function reportTable(r: CalibrationReport): string {
  const asked = r.results.length === r.cases ? `${r.cases}` : `${r.results.length} of ${r.cases}`;
  const lines = [`${asked} cases against ${identityText(r.model)}${r.failed > 0 ? `, ${r.failed} left out (below)` : ''}`];
  const rows = [['source', 'fitted', 'held out', 'measured on', 'accuracy', 'ECE before', 'ECE after', 'Brier before', 'Brier after', 'AUROC', 'map']];
  for (const s of r.sources) {
    rows.push([s.source, String(s.fitted), String(s.heldOut), s.on, f3(s.before.accuracy), f3(s.before.ece), f3(s.after?.ece), f3(s.before.brier), f3(s.after?.brier), f3(s.before.auroc), s.map ?? `none: ${s.skipped}`]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) lines.push(row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  // why cases were left out (a test that asked twice, hit a limit, ...): the first few, the rest in --json
  const left = r.results.filter((c) => !c.ok);
  for (const c of left.slice(0, 5)) lines.push(`left out: ${c.id}: ${(c.error ?? 'failed').split('\n')[0].slice(0, 300)}`);
  if (left.length > 5) lines.push(`left out: ${left.length - 5} more (--json lists every case)`);
  lines.push(r.file ? `wrote ${r.sources.filter((s) => s.map).length} map(s) to ${r.file}` : 'no map written');
  return lines.join('\n') + '\n';
}
