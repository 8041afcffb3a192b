// Which MCP server a call goes to: a Streamable HTTP endpoint (`"http://127.0.0.1:3001/mcp"`) or a
// stdio server the host launches, described as a command and its arguments, never a shell string:
//
//   {"command": "node", "args": ["server.js", "stdio"], "env": {"LEVEL": "debug"}, "pass_env": ["HOME"], "cwd": "tools"}
//
// `env` holds literal values the program gives; `pass_env` names variables copied from the run's
// environment (each needs `--allow-env`). Nothing else reaches the server's environment.
// `max_reply_bytes` raises (or lowers) the most one message of the server may be (stdio.ts).
// `protocol` is the revision spoken to a stdio server (stdio-revision.ts): "2025-11-25" (the
// default: most stdio servers speak it), "2026-07-28" (pinned: the server's `server/discover`
// must offer it), or "auto" (asked with `server/discover`, 2025-11-25 when it is not offered).

export type McpServerSpec =
  | { kind: 'http'; url: string }
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; passEnv: string[]; cwd?: string; maxReplyBytes?: number; protocol?: StdioProtocol };

/** The revision spoken to a stdio server (the launch map's `protocol`). */
export type StdioProtocol = '2025-11-25' | '2026-07-28' | 'auto';
const STDIO_PROTOCOLS: readonly StdioProtocol[] = ['2025-11-25', '2026-07-28', 'auto'];

/** A malformed server description, or a server that cannot be reached or launched: the program sees its message. */
export class McpError extends Error {
  override name = 'McpError';
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
/** The keys a launch map may hold (check/launch-maps.ts recognises a launch map written in the source by them). */
export const LAUNCH_KEYS: ReadonlySet<string> = new Set(['command', 'args', 'env', 'pass_env', 'cwd', 'max_reply_bytes', 'protocol']);
/** The range `max_reply_bytes` may take: 1 KiB to 1 GiB. */
const REPLY_BYTES_RANGE = [1024, 1024 ** 3] as const;

/** The server a Turn value describes (a URL string, or a launch map as plain JSON). Throws McpError. */
export function serverSpec(x: unknown): McpServerSpec {
  if (typeof x === 'string') {
    if (!/^https?:\/\//i.test(x)) throw new McpError(`an MCP server is an http(s) URL or a launch map {"command": ..., "args": [...]}, not "${x}"`);
    try {
      new URL(x);
    } catch {
      throw new McpError(`"${x}" is not a valid URL`);
    }
    return { kind: 'http', url: x };
  }
  if (!isObj(x)) throw new McpError('an MCP server is an http(s) URL or a launch map {"command": ..., "args": [...]}');
  for (const k of Object.keys(x)) if (!LAUNCH_KEYS.has(k)) throw new McpError(`unknown key "${k}" in an MCP launch map (known: ${[...LAUNCH_KEYS].join(', ')})`);
  if (typeof x.command !== 'string' || x.command.trim() === '') throw new McpError('an MCP launch map needs a "command" (an executable, not a shell line)');
  if (/\s/.test(x.command) && !x.command.includes('/')) {
    throw new McpError(`"command" is one executable, not a shell line: write {"command": "${x.command.split(/\s+/)[0]}", "args": [${x.command.split(/\s+/).slice(1).map((a) => JSON.stringify(a)).join(', ')}]}`);
  }
  const args = x.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new McpError('"args" of an MCP launch map must be a list of strings');
  const env = x.env ?? {};
  if (!isObj(env) || !Object.values(env).every((v) => typeof v === 'string')) throw new McpError('"env" of an MCP launch map must be a map of strings');
  const passEnv = x.pass_env ?? [];
  if (!Array.isArray(passEnv) || !passEnv.every((a) => typeof a === 'string')) throw new McpError('"pass_env" of an MCP launch map must be a list of variable names');
  if (x.cwd !== undefined && typeof x.cwd !== 'string') throw new McpError('"cwd" of an MCP launch map must be a string');
  const max = x.max_reply_bytes;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < REPLY_BYTES_RANGE[0] || max > REPLY_BYTES_RANGE[1])) {
    throw new McpError(`"max_reply_bytes" of an MCP launch map must be a whole number of bytes from ${REPLY_BYTES_RANGE[0]} to ${REPLY_BYTES_RANGE[1]}`);
  }
  const protocol = x.protocol;
  if (protocol !== undefined && !STDIO_PROTOCOLS.includes(protocol as StdioProtocol)) {
    throw new McpError(`"protocol" of an MCP launch map must be one of ${STDIO_PROTOCOLS.map((p) => `"${p}"`).join(', ')}`);
  }
  return {
    kind: 'stdio',
    command: x.command,
    args: args,
    env: env as Record<string, string>,
    passEnv: passEnv,
    ...(x.cwd !== undefined ? { cwd: x.cwd } : {}),
    ...(max !== undefined ? { maxReplyBytes: max } : {}),
    ...(protocol !== undefined ? { protocol: protocol as StdioProtocol } : {}),
  };
}

/** One line naming the server, for messages and events (no environment values). */
export function describeServer(spec: McpServerSpec): string {
  if (spec.kind === 'http') return spec.url;
  return [spec.command, ...spec.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** Identifies a server (and the identity it is reached with) within a run: one session each. */
export function serverKey(spec: McpServerSpec, identity?: { kind: string; name: string }): string {
  return JSON.stringify([spec, identity ? [identity.kind, identity.name] : null]);
}

/**
 * What identifies a launch, for comparing one a run is asked for with the launch maps written in
 * the program (runtime/check/launch-maps.ts): the command, arguments, environment (in name order),
 * pass_env names and folder.
 */
export function launchKey(spec: Extract<McpServerSpec, { kind: 'stdio' }>): string {
  const env = Object.keys(spec.env)
    .sort()
    .map((k) => [k, spec.env[k]]);
  return JSON.stringify([spec.command, spec.args, env, spec.passEnv, spec.cwd ?? null]);
}
