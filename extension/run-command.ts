// The process that runs a Turn file: `node dist/cli.js run FILE FLAGS`, where FLAGS are the
// `turn.*` settings as `turn run` flags (extension/settings.ts). No `vscode` import: unit-tested in Node.

export interface RunRequest {
  /** The JavaScript runtime: the extension host's own executable (`process.execPath`). */
  execPath: string;
  /** True when `execPath` is Electron (desktop VS Code), which runs scripts only with ELECTRON_RUN_AS_NODE. */
  electron: boolean;
  /** Absolute path of the bundled CLI (dist/cli.js). */
  cliPath: string;
  /** Absolute path of the .tn file. */
  file: string;
  /** `turn run` flags (cliArgsFromSettings) */
  flags: string[];
}

export interface RunInvocation {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export function buildRunInvocation(req: RunRequest): RunInvocation {
  return {
    command: req.execPath,
    args: [req.cliPath, 'run', req.file, ...req.flags],
    env: req.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  };
}

/** `turn gen ts FILE --out DIR [--watch]`: the typed TypeScript client of FILE's exports (docs/embedding.md). */
export interface GenRequest extends Omit<RunRequest, 'flags'> {
  /** the folder the client is written to */
  outDir: string;
  /** write it again on each change beside FILE (the task runs until stopped) */
  watch: boolean;
}

export function buildGenInvocation(req: GenRequest): RunInvocation {
  return {
    command: req.execPath,
    args: [req.cliPath, 'gen', 'ts', req.file, '--out', req.outDir, ...(req.watch ? ['--watch'] : [])],
    env: req.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  };
}

/** Where `turn gen ts FILE --out DIR` writes the client: DIR/NAME.ts for FILE NAME.tn. */
export function generatedClientPath(file: string, outDir: string): string {
  const base = file.replace(/^.*[\\/]/, '').replace(/\.tn$/, '');
  return `${outDir.replace(/[\\/]+$/, '')}/${base}.ts`;
}

/** The same invocation as one line for a person to read (or paste into a POSIX shell). */
export function describeInvocation(inv: RunInvocation): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const env = Object.entries(inv.env).map(([k, v]) => `${k}=${quote(v)} `);
  return env.join('') + [inv.command, ...inv.args].map(quote).join(' ');
}
