// Turns on the parse cache (runtime/syntax/parse-cache.ts) for a `turn run` of the built CLI: its
// entries live in the user's cache folder beside the code caches of bin/code-cache.js
// (TURN_CACHE_DIR, else $XDG_CACHE_HOME/turn, else ~/.cache/turn; %LOCALAPPDATA%\turn on Windows).
// Only a bundle that has a build id (dist/build-id, written by scripts/build.mjs) uses it: the id
// is what ties an entry to the grammar and the lowering that produced it, so a run from source
// never caches. TURN_PARSE_CACHE=off parses every time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import packageJson from '../package.json';
import { SEMANTICS_VERSION, useParseCache } from '../runtime/run/index.js';

export function userCacheBase(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TURN_CACHE_DIR) return env.TURN_CACHE_DIR;
  // node:os (homedir) is not in Node's start-up snapshot: $HOME first
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const home = (): string => env.HOME || (require('node:os') as typeof import('node:os')).homedir();
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home(), 'AppData', 'Local'), 'turn');
  return path.join(env.XDG_CACHE_HOME || path.join(home(), '.cache'), 'turn');
}

/** Uses the parse cache when this is a built CLI (`buildDir` holds build-id) and it is not turned off. */
export function enableParseCache(buildDir: string = __dirname, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TURN_PARSE_CACHE === 'off') return false;
  let build: string;
  try {
    build = fs.readFileSync(path.join(buildDir, 'build-id'), 'utf8').trim();
  } catch {
    return false;
  }
  const tag = ['turn', packageJson.version, SEMANTICS_VERSION, build].join(' | ');
  useParseCache({ dir: path.join(userCacheBase(env), 'parse-cache'), tag });
  return true;
}
