// Authority for launching a stdio MCP server (docs/mcp.md, docs/authority.md): the launch map must
// be one written literally in the program (a map built at run time could hand an interpreter any
// code: `node -e ...`), its command (and, when the grant pins them, its arguments) must be granted
// (`--allow-run`, checked when the process starts), it runs without a shell, and its environment is
// empty but for the map's literal `env` and the `pass_env` names `--allow-env` grants; the run's
// secrets (TURN_SECRET_*, provider keys) never pass.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { check, requireApproval, EffectDenied, type ApprovalHook, type ApprovalRecord, type Capabilities } from '../effects/capabilities.js';
import { isSecretEnvName } from '../effects/environ.js';
import { isInterpreter, scriptArgument } from './interpreters.js';
import { McpError, describeServer, launchKey, type McpServerSpec } from './server.js';

export interface LaunchAuthority {
  capabilities: Capabilities;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  /** where a relative command or `cwd` resolves */
  cwd: string;
  /** the run's environment: PATH to find the command, the values `pass_env` copies */
  env?: NodeJS.ProcessEnv;
  /** environment variables that hold the run's model keys (`api_key_env=`...): never passed on, like TURN_SECRET_* and every provider key */
  providerKeyNames?: ReadonlySet<string>;
  /**
   * `launchKey`s of the launch maps written literally in the program (Bundle.launchMaps); any other
   * launch is refused. Undefined: none is known, so none is launched.
   */
  writtenLaunches?: { has(key: string): boolean };
  pid?: number;
}

export interface Launch {
  /** the executable's absolute path */
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

function executable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of `command`: as given when it has a slash (relative to `cwd`), else found on PATH. */
export function resolveCommand(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (command.includes('/') || command.includes(path.sep)) {
    const file = path.resolve(cwd, command);
    return executable(file) ? file : undefined;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, command);
    if (executable(file)) return file;
  }
  return undefined;
}

/** Checks the launch against the run's grant and builds what is started. Throws EffectDenied or McpError. */
export async function authorizeLaunch(spec: Extract<McpServerSpec, { kind: 'stdio' }>, a: LaunchAuthority): Promise<Launch> {
  const shown = describeServer(spec);
  if (!a.writtenLaunches?.has(launchKey(spec))) {
    // the program's own doing, which no grant on a resume lifts: an outcome, not a refusal before sending
    throw new EffectDenied(
      `cannot start the MCP server ${shown}: its launch map is built at run time, and only a launch map written literally in the program (a map of literals, shown by turn check) is launched`,
      true,
    );
  }
  const hostEnv = a.env ?? process.env;
  const resolved = resolveCommand(spec.command, a.cwd, hostEnv);
  const verdict = check(a.capabilities, { kind: 'run', command: spec.command, args: spec.args, ...(resolved ? { resolved } : {}) });
  if (!verdict.ok) throw new EffectDenied(`cannot start the MCP server ${shown}: ${verdict.message}`);
  if (!resolved) throw new McpError(`cannot start the MCP server ${shown}: ${spec.command} is not an executable file${spec.command.includes('/') ? '' : ' on PATH'}`);
  const cwd = path.resolve(a.cwd, spec.cwd ?? '.');
  refuseRewritableCode(spec, resolved, cwd, a.capabilities, shown);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env)) {
    if (k.startsWith('TURN_SECRET_')) throw new EffectDenied(`cannot start the MCP server ${shown}: ${k} names a secret; secrets reach a server only as an identity`);
    env[k] = v;
  }
  for (const name of spec.passEnv) {
    if (isSecretEnvName(name, a.providerKeyNames)) {
      throw new EffectDenied(`cannot start the MCP server ${shown}: ${name} holds a secret of the run (TURN_SECRET_* or a model provider's key) and is never passed to a server`);
    }
    const v = check(a.capabilities, { kind: 'env', name });
    if (!v.ok) throw new EffectDenied(`cannot pass ${name} to the MCP server ${shown}: ${v.message}`);
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  await requireApproval(verdict.approve, { effect: 'run', summary: `start the MCP server ${shown}`, ...(a.pid !== undefined ? { pid: a.pid } : {}) }, a.approve, a.journal);
  return { file: resolved, args: spec.args, env, cwd };
}

/** The path as the file system resolves it (symbolic links followed) when it exists. */
function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * A server whose code the program may write is a server running the program's code: the
 * executable, or an interpreter's script (its first argument that is not a flag: `node data/s.js`,
 * `python -m pkg`, `npx pkg`, resolved where the server runs), must not lie in a folder the run
 * may write (`--allow-write`), whether the file exists yet or not.
 */
function refuseRewritableCode(spec: Extract<McpServerSpec, { kind: 'stdio' }>, resolved: string, cwd: string, caps: Capabilities, shown: string): void {
  const code = [resolved];
  const script = isInterpreter(spec.command) ? scriptArgument(spec.args) : undefined;
  if (script !== undefined) code.push(path.resolve(cwd, script));
  for (const file of code) {
    for (const p of new Set([file, realPath(file)])) {
      const writable = check(caps, { kind: 'files', path: p, mode: 'write' });
      if (writable.ok) {
        throw new EffectDenied(`cannot start the MCP server ${shown}: ${p} lies in a folder the program may write (${writable.scope}), so the program could replace the code it runs; keep a server's code outside --allow-write`);
      }
    }
  }
}
