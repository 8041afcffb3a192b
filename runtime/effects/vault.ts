// The host-side vault: where the secrets behind `grant identity::kind("name")` handles live.
// The VM only ever holds `{kind, name}`; a secret is resolved by the host at the moment it
// performs a request (runtime/effects/http.ts) and never flows back into Turn values.
//
//   CLI:     EnvVault (TURN_SECRET_<NAME>) chained with an optional FileVault (`--secrets FILE`).
//   VS Code: SecretStorageVault over the extension's SecretStorage (wired in the extension issue).
import * as fs from 'node:fs';

export interface VaultEntry {
  /** The secret's name (never its value). */
  name: string;
  /** Where it comes from, e.g. `env:TURN_SECRET_GITHUB` or `file:/home/me/.turn-secrets`. */
  source: string;
}

export interface Vault {
  /** The secret called `name`, or undefined when this vault does not have it. */
  resolve(name: string): Promise<string | undefined>;
  /** Names and metadata only — never values. */
  list(): Promise<VaultEntry[]>;
}

/** A vault that cannot be used (a world-readable secrets file, a malformed file...). */
export class VaultError extends Error {}

/**
 * The environment variable that holds the secret `name`: `TURN_SECRET_` followed by the name
 * upper-cased, every character other than an ASCII letter or digit written as `_`.
 * `secretEnvName("github")` → `TURN_SECRET_GITHUB`; `"my-api.key"` → `TURN_SECRET_MY_API_KEY`.
 */
export function secretEnvName(name: string): string {
  let out = '';
  for (const ch of name) out += /^[A-Za-z0-9]$/.test(ch) ? ch.toUpperCase() : '_';
  return 'TURN_SECRET_' + out;
}

const ENV_PREFIX = 'TURN_SECRET_';

/** Secrets from the process environment, `TURN_SECRET_<NAME>` (see `secretEnvName`). */
export class EnvVault implements Vault {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async resolve(name: string): Promise<string | undefined> {
    const v = this.env[secretEnvName(name)];
    return v === undefined || v === '' ? undefined : v;
  }

  async list(): Promise<VaultEntry[]> {
    return Object.keys(this.env)
      .filter((k) => k.startsWith(ENV_PREFIX) && k.length > ENV_PREFIX.length && this.env[k])
      .sort()
      .map((k) => ({ name: k.slice(ENV_PREFIX.length), source: `env:${k}` }));
  }
}

export interface FileVaultOptions {
  /** Skip the permission check (tests, platforms without POSIX modes). Default false. */
  allowInsecure?: boolean;
}

/**
 * Secrets from a file the user points to (`turn run --secrets FILE`). Two formats:
 *  - JSON: an object `{"github": "ghp_...", "openai": "sk-..."}` (string values only);
 *  - dotenv: `NAME=value` lines, `#` comments, optional `export ` prefix, optional quotes.
 * A key matches a requested name exactly, or when both map to the same `secretEnvName`
 * (so `GITHUB=`, `github=` and `TURN_SECRET_GITHUB=` all provide `github`).
 *
 * On POSIX, a file readable or writable by other users (mode & 0o006) is refused with a
 * VaultError that says how to fix it (`chmod 600 FILE`): a secret that every account on the
 * machine can read is not a secret. The check runs when the file is loaded.
 */
export class FileVault implements Vault {
  private entries: Map<string, string> | undefined;

  constructor(
    readonly file: string,
    private readonly options: FileVaultOptions = {},
  ) {}

  /** Loads and checks the file now, so a CLI can fail before the program starts. */
  static async open(file: string, options: FileVaultOptions = {}): Promise<FileVault> {
    const v = new FileVault(file, options);
    await v.load();
    return v;
  }

  private async load(): Promise<Map<string, string>> {
    if (this.entries) return this.entries;
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(this.file);
    } catch (e) {
      throw new VaultError(`cannot read secrets file ${this.file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (!stat.isFile()) throw new VaultError(`secrets file ${this.file} is not a regular file`);
    if (!this.options.allowInsecure && process.platform !== 'win32' && (stat.mode & 0o006) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
      throw new VaultError(
        `secrets file ${this.file} is accessible to other users (mode ${mode}); refusing to use it. Run: chmod 600 ${this.file}`,
      );
    }
    const text = await fs.promises.readFile(this.file, 'utf8');
    this.entries = parseSecretsFile(text, this.file);
    return this.entries;
  }

  async resolve(name: string): Promise<string | undefined> {
    const entries = await this.load();
    if (entries.has(name)) return entries.get(name) || undefined;
    const wanted = secretEnvName(name);
    for (const [k, v] of entries) {
      if (k === wanted || secretEnvName(k) === wanted) return v || undefined;
    }
    return undefined;
  }

  async list(): Promise<VaultEntry[]> {
    const entries = await this.load();
    return [...entries.keys()].sort().map((name) => ({ name, source: `file:${this.file}` }));
  }
}

/** Parses a JSON object or dotenv text into name → secret. Errors never quote a value. */
export function parseSecretsFile(text: string, file = 'secrets file'): Map<string, string> {
  const out = new Map<string, string>();
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch {
      throw new VaultError(`${file} is not valid JSON`);
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new VaultError(`${file} must hold a JSON object`);
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
      if (typeof v !== 'string') throw new VaultError(`${file}: the value of "${k}" must be a string`);
      out.set(k, v);
    }
    return out;
  }
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) throw new VaultError(`${file}:${i + 1}: expected NAME=value`);
    let value = m[2];
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) {
      value = value.slice(1, -1);
      if (m[2][0] === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    } else {
      const hash = value.search(/\s#/);
      if (hash >= 0) value = value.slice(0, hash).trimEnd();
    }
    out.set(m[1], value);
  });
  return out;
}

/** Asks each vault in order; the first that has the secret wins. `list` merges (first source wins). */
export class ChainVault implements Vault {
  constructor(private readonly vaults: Vault[]) {}

  async resolve(name: string): Promise<string | undefined> {
    for (const v of this.vaults) {
      const s = await v.resolve(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  async list(): Promise<VaultEntry[]> {
    const seen = new Set<string>();
    const out: VaultEntry[] = [];
    for (const v of this.vaults) {
      for (const e of await v.list()) {
        const key = secretEnvName(e.name);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(e);
      }
    }
    return out;
  }
}

/**
 * The part of VS Code's `SecretStorage` the editor vault needs (no `vscode` import here; the
 * extension passes `context.secrets`). Keys are `turn.secret.<name>`.
 */
export interface SecretStorageLike {
  get(key: string): PromiseLike<string | undefined>;
  /** Present in newer VS Code versions; without it `list()` returns only names stored via `known`. */
  keys?(): PromiseLike<string[]>;
}

export const SECRET_STORAGE_PREFIX = 'turn.secret.';

export class SecretStorageVault implements Vault {
  constructor(
    private readonly storage: SecretStorageLike,
    /** Names the extension knows it stored (for `list` when `keys()` is unavailable). */
    private readonly known: () => string[] = () => [],
  ) {}

  async resolve(name: string): Promise<string | undefined> {
    const v = await this.storage.get(SECRET_STORAGE_PREFIX + name);
    return v === '' ? undefined : v;
  }

  async list(): Promise<VaultEntry[]> {
    const keys = this.storage.keys
      ? (await this.storage.keys()).filter((k) => k.startsWith(SECRET_STORAGE_PREFIX)).map((k) => k.slice(SECRET_STORAGE_PREFIX.length))
      : this.known();
    return [...new Set(keys)].sort().map((name) => ({ name, source: 'vscode:SecretStorage' }));
  }
}

/** An in-memory vault (tests, embedding). */
export class MemoryVault implements Vault {
  constructor(private readonly secrets: Record<string, string>) {}
  async resolve(name: string): Promise<string | undefined> {
    return Object.hasOwn(this.secrets, name) ? this.secrets[name] : undefined;
  }
  async list(): Promise<VaultEntry[]> {
    return Object.keys(this.secrets).sort().map((name) => ({ name, source: 'memory' }));
  }
}

/**
 * The last line of defence for traces, journals and standard output: every secret resolved so
 * far is replaced by `«redacted:NAME»` wherever it occurs. Longer secrets are replaced first so
 * that a secret containing another is redacted whole. Empty secrets are ignored.
 */
export class Redactor {
  private readonly secrets = new Map<string, string>(); // secret → name
  private pattern: RegExp | undefined;

  add(name: string, secret: string): void {
    if (!secret || this.secrets.get(secret) === name) return;
    this.secrets.set(secret, name);
    this.pattern = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  redact(text: string): string {
    if (this.secrets.size === 0 || !text) return text;
    if (!this.pattern) {
      const all = [...this.secrets.keys()].sort((a, b) => b.length - a.length);
      this.pattern = new RegExp(all.map(escapeRegExp).join('|'), 'g');
    }
    return text.replace(this.pattern, (s) => `«redacted:${this.secrets.get(s)}»`);
  }

  /** Redacts every string inside a JSON-like value (keys too); returns a copy. */
  redactDeep<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.redact(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
        const o: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) o[this.redact(k)] = walk(x);
        return o;
      }
      return v;
    };
    return walk(value) as T;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A vault that records every secret it hands out in a Redactor. */
export class RedactingVault implements Vault {
  constructor(
    private readonly inner: Vault,
    readonly redactor: Redactor,
  ) {}
  async resolve(name: string): Promise<string | undefined> {
    const s = await this.inner.resolve(name);
    if (s !== undefined) this.redactor.add(name, s);
    return s;
  }
  list(): Promise<VaultEntry[]> {
    return this.inner.list();
  }
}
