// Shared by the tests of `turn test`, `turn record` and `turn eval`: the built CLI as a child
// process (asynchronous, so a fake model server in this process can answer it), and temp folders.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../cli/run-cli.js';

export { ROOT, turnAsync, type AsyncCliResult as CliResult } from '../cli/run-cli.js';

/** A fresh temp folder, removed when the process exits. */
export function tempDir(prefix = 'turn-testing-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Copies examples/NAME* (program, test file, recording, fixtures) into `dir`. */
export function copyExample(name: string, dir: string): void {
  for (const f of fs.readdirSync(path.join(ROOT, 'examples'))) {
    if (f.startsWith(name)) fs.copyFileSync(path.join(ROOT, 'examples', f), path.join(dir, f));
  }
}

/** A JavaScript stack trace in user-facing output means an error escaped as a crash. */
export const JS_STACK = /\n\s+at .+\.(js|ts):\d+/;
