// The CLI's way to the person who signs in: the authorization URL is printed (standard error) and
// opened in the system browser, or with the command `TURN_BROWSER` names (a headless run, a test:
// the command gets the URL as its last argument; `TURN_BROWSER=none` only prints). The editor
// passes its own opener (VS Code's `env.openExternal`) through the run API instead.
import { spawn } from 'node:child_process';
import type { OpenUrl } from './options.js';

/** `TURN_BROWSER`'s command line: a JSON list, or words separated by spaces. */
function commandOf(value: string): string[] {
  const t = value.trim();
  if (t.startsWith('[')) {
    const parsed = JSON.parse(t) as unknown;
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((x) => typeof x === 'string')) return parsed;
    throw new Error('TURN_BROWSER: a JSON list of strings was expected');
  }
  return t.split(/\s+/);
}

function systemCommand(): string[] {
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler'];
  return ['xdg-open'];
}

/** The opener of a run that was given none: print, then the browser (never a shell: the URL is one argument). */
export function systemOpener(env: Record<string, string | undefined> = process.env, print: (line: string) => void = (l) => process.stderr.write(l + '\n')): OpenUrl {
  return (url) => {
    print(`turn: sign in to continue: ${url}`);
    const chosen = env.TURN_BROWSER;
    if (chosen === 'none') return;
    const [cmd, ...args] = chosen ? commandOf(chosen) : systemCommand();
    // the browser outlives nothing of turn's: the run goes on (waiting for the redirect) and may end first
    const child = spawn(cmd, [...args, url], { stdio: 'ignore', detached: !chosen });
    child.on('error', () => print(`turn: could not start ${cmd}: open the URL above yourself`));
    child.unref();
  };
}
