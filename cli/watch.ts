// `turn run --watch FILE` and `turn test --watch [PATHS]`: run the command once, then again each
// time a .tn file it reads may have changed (a save beside FILE, or under PATHS), until Ctrl-C.
// Each run is a child process of its own (`turn run FILE` without --watch): nothing of one run
// (a module read before the save, a VM's state, a budget spent) can leak into the next, and a
// runaway run is stopped when the next save starts another.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { err } from './usage.js';

/** Saves arriving within this many milliseconds are one change (editors write a file in steps). */
const SETTLE_MS = 100;

/** The arguments without `--watch` (before a `--`). */
export function withoutWatch(args: string[]): string[] {
  const end = args.indexOf('--');
  const head = (end < 0 ? args : args.slice(0, end)).filter((a) => a !== '--watch');
  return end < 0 ? head : [...head, ...args.slice(end)];
}

/**
 * Runs `turn COMMAND ARGS` now and after every change to a .tn file under `roots` (files stand for
 * their folder). Never returns: the process ends with Ctrl-C (or when a watched folder goes away).
 */
export function watch(command: string, args: string[], roots: string[]): Promise<number> {
  const folders = [...new Set(roots.map((r) => path.resolve(fs.existsSync(r) && fs.statSync(r).isDirectory() ? r : path.dirname(r))))];
  let child: ChildProcess | undefined;
  let timer: NodeJS.Timeout | undefined;
  const start = (): void => {
    // a run still going when the file changed is stopped: its result is of the old text
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const run = spawn(process.execPath, [...process.execArgv, process.argv[1], command, ...args], { stdio: 'inherit' });
    child = run;
    run.on('exit', (code, signal) => {
      if (run !== child) return; // stopped for a newer run: that one reports
      err(`turn: ${signal ? `stopped (${signal})` : `exit ${code}`}; watching ${folders.join(', ')} (save a .tn file to run again, Ctrl-C stops)`);
    });
  };
  return new Promise<number>((resolve) => {
    for (const folder of folders) {
      const watcher = fs.watch(folder, { recursive: command === 'test' }, (_event, name) => {
        if (name !== null && !String(name).endsWith('.tn')) return;
        clearTimeout(timer);
        timer = setTimeout(start, SETTLE_MS);
      });
      watcher.on('error', (e) => {
        err(`turn: cannot watch ${folder}: ${e.message}`);
        child?.kill('SIGTERM');
        resolve(1);
      });
    }
    // Ctrl-C (or a kill) ends the run going on too, and exits as an interrupted command does
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      process.once(signal, () => {
        child?.kill('SIGTERM');
        process.exit(code);
      });
    }
    // watching before the first run: a save during it is not missed
    err(`turn: watching ${folders.join(', ')}`);
    start();
  });
}
