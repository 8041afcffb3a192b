// `turn fmt FILE...`: formats Turn files in place with the formatter of runtime/format.
//   --check   write nothing; list the files that would change (on standard error) and exit 1 if any would.
//   `-`       as the only FILE: read standard input, write the formatted text to standard output.
// Exit codes: 0 done (or, with --check, nothing to change), 1 --check found files to change,
// 2 a file has syntax errors or cannot be read (it is left untouched; the others are still formatted),
// 64 the command line is wrong.
import * as fs from 'node:fs';
import { formatDiagnostic, formatSource, parseSource } from '../runtime/index.js';
import { InputError, decodeSource, readSourceText } from '../runtime/index.js';
import { turnFiles } from './files.js';
import { shownPath } from './report.js';
import { COMMANDS } from './commands.js';
import { parse } from './usage.js';

const CODES = { ok: 0, wouldChange: 1, error: 2, usage: 64 } as const;

export const FMT_USAGE = 'usage: turn fmt [--check] FILE|FOLDER... (a folder: the .tn files under it; `turn fmt -` formats standard input to standard output)';

export async function fmtCommand(args: string[]): Promise<number> {
  const parsed = parse(args, COMMANDS.fmt.options, 'fmt');
  const files = parsed.positionals;
  const check = parsed.values.check === true;
  if (files.length === 0) {
    process.stderr.write(`turn: \`turn fmt\` needs at least one FILE\n${FMT_USAGE}\n`);
    return CODES.usage;
  }
  if (files.includes('-')) {
    if (files.length !== 1) {
      process.stderr.write(`turn: \`-\` (standard input) must be the only FILE\n${FMT_USAGE}\n`);
      return CODES.usage;
    }
    return formatStdin(check);
  }
  let code: number = CODES.ok;
  const found = turnFiles(files);
  for (const m of found.missing) {
    process.stderr.write(`turn: ${m}: no such file or folder\n`);
    code = CODES.error;
  }
  for (const file of found.files) {
    let text: string;
    try {
      text = readSourceText(file);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      process.stderr.write(`turn: ${e.message}\n`);
      code = CODES.error;
      continue;
    }
    const result = await formatSource(text);
    if (!result.ok) {
      process.stderr.write(await syntaxError(file, text, result));
      code = CODES.error;
      continue;
    }
    if (!result.changed) continue;
    if (check) {
      process.stderr.write(`${file}: would be reformatted\n`);
      if (code === CODES.ok) code = CODES.wouldChange;
    } else {
      fs.writeFileSync(file, result.text);
    }
  }
  return code;
}

async function formatStdin(check: boolean): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  let text: string;
  try {
    text = decodeSource('<stdin>', Buffer.concat(chunks));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    process.stderr.write(`turn: ${e.message}\n`);
    return CODES.error;
  }
  const result = await formatSource(text);
  if (!result.ok) {
    process.stderr.write(await syntaxError('<stdin>', text, result));
    return CODES.error;
  }
  if (check) return result.changed ? CODES.wouldChange : CODES.ok;
  process.stdout.write(result.text);
  return CODES.ok;
}

/**
 * What is wrong with a file that does not format: its syntax errors as `turn check` reports them
 * (the same place, the same words), then that it was left as it was.
 */
async function syntaxError(file: string, text: string, result: { line: number; column: number; message: string }): Promise<string> {
  const shown = file === '<stdin>' ? file : shownPath(file);
  const parsed = await parseSource(shown, text);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return `${shown}:${result.line}:${result.column}: ${result.message}\n`;
  return errors.map((d) => formatDiagnostic(parsed.file, d) + '\n').join('') + `${shown}: not formatted: fix the syntax errors first\n`;
}
