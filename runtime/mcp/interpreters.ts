// Commands that run whatever code their arguments (or a file they name) hold: granting one with
// free arguments grants everything the run's user may do (docs/authority.md, *Launching programs*).
// `turn check` warns about such grants (runtime/check/launch-maps.ts); a launch refuses an
// interpreter whose script the program itself may rewrite (runtime/mcp/launch.ts).

const INTERPRETERS = new Set(['node', 'nodejs', 'python', 'python3', 'python2', 'pypy', 'pypy3', 'bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'deno', 'bun', 'ruby', 'perl', 'php', 'lua', 'luajit', 'Rscript', 'java', 'osascript', 'pwsh', 'powershell', 'npx', 'pnpx', 'bunx', 'uvx', 'uv', 'pipx', 'env', 'xargs', 'npm', 'pnpm', 'yarn', 'tsx', 'ts-node']);

/** Arguments that hand an interpreter code to run. */
export const CODE_FLAGS: ReadonlySet<string> = new Set(['-e', '-E', '-c', '-p', '--eval', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader', 'eval']);

/** A command's last path part, without `.exe`. */
export function commandName(command: string): string {
  const i = Math.max(command.lastIndexOf('/'), command.lastIndexOf('\\'));
  const name = command.slice(i + 1);
  return name.toLowerCase().endsWith('.exe') ? name.slice(0, -4) : name;
}

/** Whether `command` (a name or a path) is an interpreter or a package runner. */
export function isInterpreter(command: string): boolean {
  const name = commandName(command);
  return INTERPRETERS.has(name) || /^python\d/.test(name) || /^node\d/.test(name);
}

/** The script an interpreter runs: its first argument that is not a flag, if any (`node server.js stdio` → `server.js`). */
export function scriptArgument(args: readonly string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'));
}
