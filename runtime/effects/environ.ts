// The run's secrets in its environment: which variables hold them, and keeping them out of reach of
// the processes a run launches (stdio MCP servers, docs/authority.md, *Launching programs*).
//
// A launched server gets an environment built from its launch map only (runtime/mcp/launch.ts), but
// it runs as the same user as turn, and Linux lets a process read `/proc/<pid>/environ` of any
// process of its user: its parent's included. That file is not `process.env`: it is the block of
// memory the kernel filled at exec time (measured: deleting a variable from `process.env` leaves it
// in `/proc/self/environ`). So at start-up the CLI moves each secret's value to a fresh copy
// (`process.env[name] = value`: libc's setenv allocates a new string and points `environ` at it)
// and then overwrites the old bytes in that block through `/proc/self/mem`. The vault and the
// providers still read `process.env` as before; `/proc/<turn>/environ` shows `NAME=` and nothing.
//
// What this does not cover: a process that may ptrace-attach to turn (`/proc/<pid>/mem`) reads all
// of its memory. Most distributions forbid a child from attaching to its parent (Yama's
// ptrace_scope 1); where they do not, only another user (or a sandbox) keeps a server out.
import * as fs from 'node:fs';

/**
 * Variables that hold a model provider's key or a cloud credential, by name. A run never hands them
 * to a launched server (`pass_env`), and the CLI scrubs them from its initial environment.
 */
const PROVIDER_KEY_EXACT = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OLLAMA_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'AZURE_OPENAI_API_KEY',
  'AZURE_API_KEY',
  'AZURE_CLIENT_SECRET',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'COHERE_API_KEY',
  'CO_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'PERPLEXITY_API_KEY',
  'OPENROUTER_API_KEY',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'REPLICATE_API_TOKEN',
  'VOYAGE_API_KEY',
]);
const PROVIDER_PREFIXES = ['OPENAI_', 'ANTHROPIC_', 'OLLAMA_', 'GEMINI_', 'GOOGLE_', 'AZURE_', 'AWS_'];
const SECRET_SUFFIXES = ['_KEY', '_TOKEN', '_SECRET'];

/**
 * Whether `name` names a provider's key or a cloud credential (OPENAI_API_KEY, AWS_SESSION_TOKEN,
 * AZURE_OPENAI_KEY...): the one list behind every rule about them. Whatever model a run uses, each
 * one set is registered with the run's Redactor before the program starts (runtime/run/host.ts),
 * `env.get` refuses it, and `pass_env` never hands it to a launched server.
 */
export function isProviderKeyName(name: string): boolean {
  if (PROVIDER_KEY_EXACT.has(name)) return true;
  return PROVIDER_PREFIXES.some((p) => name.startsWith(p)) && SECRET_SUFFIXES.some((s) => name.endsWith(s));
}

/** The provider-key variables set in `env`. */
export function providerKeyNamesIn(env: Record<string, string | undefined>): string[] {
  return Object.keys(env).filter((n) => env[n] && isProviderKeyName(n));
}

/** Whether `name` holds a secret of the run: TURN_SECRET_*, a provider key, or one of `more` (an `api_key_env=` name). */
export function isSecretEnvName(name: string, more?: ReadonlySet<string>): boolean {
  return name.startsWith('TURN_SECRET_') || isProviderKeyName(name) || (more?.has(name) ?? false);
}

let scrubbing = false;
/** Names whose bytes in the initial block were already overwritten (or found absent). */
const considered = new Set<string>();

/** Turns the scrub on for this process (the CLI does at start-up; a library host such as the editor's does not). */
export function enableEnvironScrub(): void {
  scrubbing = true;
}

/** Where the kernel keeps this process's initial environment: `[env_start, env_end)` of /proc/self/stat (fields 50, 51). */
function environBlock(): { start: number; end: number } | undefined {
  const stat = fs.readFileSync('/proc/self/stat', 'latin1');
  // the command name (field 2) is in parentheses and may hold spaces: count fields after its `)`
  const fields = stat.slice(stat.lastIndexOf(')') + 2).trim().split(' ');
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start || end - start > 16 * 1024 * 1024) return undefined;
  return { start, end };
}

/**
 * Overwrites the values of the secret variables (`isSecretEnvName`, and `more`) in this process's
 * initial environment block, after moving each to a copy `process.env` still reads. Returns the
 * names scrubbed. Linux only, best effort: elsewhere, or when /proc is not there, it does nothing.
 */
export function scrubInitialEnvironment(more?: ReadonlySet<string>): string[] {
  if (!scrubbing || process.platform !== 'linux') return [];
  // each name once per process: the CLI's start-up does the usual names, a run's host only the
  // `api_key_env=` names its model adds (a process running many tests builds many hosts)
  const names = Object.keys(process.env).filter((n) => !considered.has(n) && isSecretEnvName(n, more));
  if (names.length === 0) return [];
  for (const n of names) considered.add(n);
  let fd: number | undefined;
  try {
    const block = environBlock();
    if (!block) return [];
    // a fresh copy for `process.env` first: afterwards nothing points into the block's bytes
    for (const n of names) {
      const v = process.env[n];
      if (v !== undefined) process.env[n] = v;
    }
    fd = fs.openSync('/proc/self/mem', 'r+');
    const bytes = Buffer.alloc(block.end - block.start);
    fs.readSync(fd, bytes, 0, bytes.length, block.start);
    const wanted = new Set(names);
    const scrubbed: string[] = [];
    let changed = false;
    for (let i = 0; i < bytes.length; ) {
      let j = bytes.indexOf(0, i);
      if (j < 0) j = bytes.length;
      const eq = bytes.indexOf(0x3d /* = */, i);
      if (eq > i && eq < j) {
        const name = bytes.toString('latin1', i, eq);
        if (wanted.has(name) && j > eq + 1) {
          bytes.fill(0, eq + 1, j);
          scrubbed.push(name);
          changed = true;
        }
      }
      i = j + 1;
    }
    if (changed) fs.writeSync(fd, bytes, 0, bytes.length, block.start);
    return scrubbed;
  } catch {
    return []; // no /proc, or /proc/self/mem not writable here: the launch rules still hold
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
