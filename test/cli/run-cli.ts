// Runs the built `turn` command (bin/turn.js → dist/cli.js) as a child process, as a user would.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function turn(args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A JavaScript stack trace in user-facing output means an error escaped as a crash. */
export const JS_STACK = /\n\s+at .+\.(js|ts):\d+/;
