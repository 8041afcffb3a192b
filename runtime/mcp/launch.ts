// Authority for launching a stdio MCP server (docs/mcp.md): the command must be granted
// (`--allow-run COMMAND`, checked when the process starts), it runs without a shell, and its
// environment is empty but for what the launch map gives and the grant lets through.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { check, requireApproval, EffectDenied, type ApprovalHook, type ApprovalRecord, type Capabilities } from '../effects/capabilities.js';
import { McpError, describeServer, type McpServerSpec } from './server.js';

export interface LaunchAuthority {
  capabilities: Capabilities;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  /** where a relative command or `cwd` resolves */
  cwd: string;
  /** the run's environment: PATH to find the command, the values `pass_env` copies */
  env?: NodeJS.ProcessEnv;
  /** environment variables that hold the run's model keys: never passed on */
  providerKeyNames?: ReadonlySet<string>;
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
  const hostEnv = a.env ?? process.env;
  const resolved = resolveCommand(spec.command, a.cwd, hostEnv);
  const verdict = check(a.capabilities, { kind: 'run', command: spec.command, ...(resolved ? { resolved } : {}) });
  if (!verdict.ok) throw new EffectDenied(`cannot start the MCP server ${describeServer(spec)}: ${verdict.message}`);
  if (!resolved) throw new McpError(`cannot start the MCP server ${describeServer(spec)}: ${spec.command} is not an executable file${spec.command.includes('/') ? '' : ' on PATH'}`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env)) {
    if (k.startsWith('TURN_SECRET_')) throw new EffectDenied(`cannot start the MCP server ${describeServer(spec)}: ${k} names a secret; secrets reach a server only as an identity`);
    env[k] = v;
  }
  for (const name of spec.passEnv) {
    if (name.startsWith('TURN_SECRET_') || a.providerKeyNames?.has(name)) {
      throw new EffectDenied(`cannot start the MCP server ${describeServer(spec)}: ${name} holds a secret of the run and is never passed to a server`);
    }
    const v = check(a.capabilities, { kind: 'env', name });
    if (!v.ok) throw new EffectDenied(`cannot pass ${name} to the MCP server ${describeServer(spec)}: ${v.message}`);
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  await requireApproval(verdict.approve, { effect: 'run', summary: `start the MCP server ${describeServer(spec)}`, ...(a.pid !== undefined ? { pid: a.pid } : {}) }, a.approve, a.journal);
  return { file: resolved, args: spec.args, env, cwd: path.resolve(a.cwd, spec.cwd ?? '.') };
}
