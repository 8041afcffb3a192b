// Runs the built `turn` command (bin/turn.js → dist/cli.js) as a child process, as a user would:
// `turn` waits for it, `turnAsync` lets this process go on (a fake server in it can answer the CLI).
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'turn.js');

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
    timeout: 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface AsyncCliResult extends CliResult {
  signal: NodeJS.Signals | null;
}

export interface AsyncCliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** SIGKILLs the CLI after this long (by default it may take as long as it takes) */
  killAfterMs?: number;
}

export function turnAsync(args: string[], options: AsyncCliOptions = {}): Promise<AsyncCliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A JavaScript stack trace in user-facing output means an error escaped as a crash. */
export const JS_STACK = /\n\s+at .+\.(js|ts):\d+/;
