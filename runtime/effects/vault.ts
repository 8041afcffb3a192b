// The host-side vault: where the secrets behind `grant identity::kind("name")` handles live.
// The VM only ever holds `{kind, name}`; a secret is resolved by the host at the moment it
// performs a request (runtime/effects/http.ts) and never flows back into Turn values.
//
//   CLI:     EnvVault (TURN_SECRET_<NAME>) chained with an optional FileVault (`--secrets FILE`).
//   VS Code: SecretStorageVault over the extension's SecretStorage (wired in the extension issue).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

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
  /**
   * Every secret this vault holds that costs nothing to read (it is in memory already: the
   * environment, a loaded file), so the host's Redactor knows them before the program can see
   * anything. Vaults that must ask someone (SecretStorage) leave it out: theirs are registered when
   * resolved.
   */
  readySecrets?(): Promise<{ name: string; secret: string }[]>;
  /** Files that hold secrets (a `--secrets` file): never readable or writable through the file effects. */
  files?(): string[];
  /**
   * Keeps `secret` under `name`, for what the host itself obtains: an MCP server's OAuth client
   * registration and tokens (runtime/mcp/oauth, under names like `oauth:github`, which no grant can
   * name). Only vaults that can write have it.
   */
  save?(name: string, secret: string): Promise<void>;
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

  async readySecrets(): Promise<{ name: string; secret: string }[]> {
    return Object.entries(this.env)
      .filter(([k, v]) => k.startsWith(ENV_PREFIX) && k.length > ENV_PREFIX.length && v)
      .map(([k, v]) => ({ name: k.slice(ENV_PREFIX.length), secret: v! }));
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

  async readySecrets(): Promise<{ name: string; secret: string }[]> {
    return [...(await this.load())].filter(([, v]) => v).map(([name, secret]) => ({ name, secret }));
  }

  files(): string[] {
    return [this.file];
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
  private readonly saved = new Map<string, string>();
  constructor(private readonly vaults: Vault[]) {}

  async resolve(name: string): Promise<string | undefined> {
    if (this.saved.has(name)) return this.saved.get(name);
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

  async readySecrets(): Promise<{ name: string; secret: string }[]> {
    const out: { name: string; secret: string }[] = [];
    for (const v of this.vaults) if (v.readySecrets) out.push(...(await v.readySecrets()));
    return out;
  }

  files(): string[] {
    return this.vaults.flatMap((v) => v.files?.() ?? []);
  }

  /** Saved in the first vault that can write, and asked first from now on (an earlier vault's older value would shadow it). */
  async save(name: string, secret: string): Promise<void> {
    const writable = this.vaults.find((v) => v.save);
    if (!writable?.save) throw new VaultError(`no vault can keep "${name}" (the run's vaults are read-only)`);
    await writable.save(name, secret);
    this.saved.set(name, secret);
  }
}

/**
 * The part of VS Code's `SecretStorage` the editor vault needs (no `vscode` import here; the
 * extension passes `context.secrets`). Keys are `turn.secret.<name>`.
 */
export interface SecretStorageLike {
  get(key: string): PromiseLike<string | undefined>;
  /** VS Code's `SecretStorage.store`: without it the vault is read-only. */
  store?(key: string, value: string): PromiseLike<void>;
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

  async save(name: string, secret: string): Promise<void> {
    if (!this.storage.store) throw new VaultError(`this editor's SecretStorage cannot keep "${name}"`);
    await this.storage.store(SECRET_STORAGE_PREFIX + name, secret);
  }
}

/**
 * The CLI's writable vault: what the host obtains itself (MCP servers' OAuth registrations and
 * tokens), a JSON object of name → text in a file only its owner may read or write (mode 600, in
 * a folder of mode 700), replaced whole by a rename so a reader never sees half of it. Like a
 * `--secrets` file, one that other users can read or write is refused. Its default place is
 * `~/.turn/tokens.json` (`TURN_TOKENS_FILE` moves it; `tokensFile`).
 */
export class TokenFileVault implements Vault {
  constructor(readonly file: string) {}

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      const stat = await fs.promises.stat(this.file);
      if (process.platform !== 'win32' && (stat.mode & 0o066) !== 0) {
        throw new VaultError(`the token file ${this.file} is accessible to other users; refusing to use it. Run: chmod 600 ${this.file}`);
      }
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new VaultError(`the token file ${this.file} is not JSON (remove it to sign in again)`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new VaultError(`the token file ${this.file} is not a JSON object`);
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string'));
  }

  async resolve(name: string): Promise<string | undefined> {
    const all = await this.read();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  }

  async list(): Promise<VaultEntry[]> {
    return Object.keys(await this.read()).sort().map((name) => ({ name, source: `file:${this.file}` }));
  }

  async save(name: string, secret: string): Promise<void> {
    const all = await this.read();
    all[name] = secret;
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
    await fs.promises.rename(tmp, this.file);
  }

  files(): string[] {
    return [this.file];
  }
}

/** Where the CLI keeps OAuth tokens: `$TURN_TOKENS_FILE`, else `~/.turn/tokens.json`. */
export function tokensFile(env: Record<string, string | undefined> = process.env): string {
  return env.TURN_TOKENS_FILE || path.join(os.homedir(), '.turn', 'tokens.json');
}

/** An in-memory vault (tests, embedding). */
export class MemoryVault implements Vault {
  constructor(private readonly secrets: Record<string, string>) {}
  async save(name: string, secret: string): Promise<void> {
    this.secrets[name] = secret;
  }
  async resolve(name: string): Promise<string | undefined> {
    return Object.hasOwn(this.secrets, name) ? this.secrets[name] : undefined;
  }
  async list(): Promise<VaultEntry[]> {
    return Object.keys(this.secrets).sort().map((name) => ({ name, source: 'memory' }));
  }
  async readySecrets(): Promise<{ name: string; secret: string }[]> {
    return Object.entries(this.secrets).map(([name, secret]) => ({ name, secret }));
  }
}

/** Where a secret was found in a text: `text.slice(start, end)` becomes `«redacted:NAME»`. */
interface Found {
  start: number;
  end: number;
  /** undefined: a form whose secret is unknown (never in practice) */
  name: string | undefined;
}

/**
 * Replaces secrets with `«redacted:NAME»` wherever they occur, in every form a secret travels in:
 *
 *  - as is, in any letter case (a server may upper-case what it echoes), and in the forms a
 *    receiving server may normalize it to: trimmed of surrounding whitespace, Unicode NFC, NFD,
 *    NFKC and NFKD (`variants`);
 *  - base64 (standard and URL-safe alphabets): the whole encoding of the secret, and — for a secret
 *    inside a longer encoded text, such as `Authorization: Basic base64("user:" + secret)` — the
 *    part of the encoding that only the secret's bytes determine, at each of the three alignments;
 *  - escaped, character by character, the way JSON (`\"`, `\\`, `\/`, `\u0022`, also escaped
 *    again), URLs (`%22`, `%2f`, `+` for a space, `%2522`) and HTML (`&#34;`, `&quot;`) write
 *    characters other than ASCII letters and digits; these forms may mix.
 *
 * The host applies it where effect results and model replies enter the VM, so nothing the program
 * holds — and nothing downstream: journal, snapshots, trace, output — carries a secret; and again
 * at every exit (output, events, the trace, `turn mcp` replies, error messages). Text that arrives
 * in pieces (a model's streamed reply) is redacted as a stream (`StreamRedactor`). Longer forms
 * are tried first, so a secret containing another is redacted whole. Empty secrets are ignored;
 * encoded forms shorter than MIN_ENCODED characters are not matched (too many false hits).
 */
export class Redactor {
  private readonly secrets = new Map<string, string>(); // secret → name
  private pattern: RegExp | undefined;
  private names: string[] = []; // capture group i+1 → name
  private hold = 0; // see holdLength

  add(name: string, secret: string): void {
    if (!secret) return;
    this.register(name, secret);
    // what a receiving server may have made of it: guesses, so only when long enough to be a secret
    for (const v of variants(secret)) if (v.length >= MIN_KNOWN_SECRET) this.register(name, v);
  }

  private register(name: string, secret: string): void {
    if (this.secrets.get(secret) === name) return; // (the last name given a secret is the one shown)
    this.secrets.set(secret, name);
    this.pattern = undefined;
  }

  /**
   * Adds a secret the run *may* use, known before it is used (a `TURN_SECRET_*` variable, a
   * `--secrets` entry, the model's API key), when it has at least MIN_KNOWN_SECRET characters:
   * a shorter value (`k`, `test`) is a placeholder more often than a secret, and redacting it
   * everywhere would garble the output. A secret resolved for use is always added (`add`).
   */
  addKnown(name: string, secret: string): void {
    if (secret.length >= MIN_KNOWN_SECRET) this.add(name, secret);
  }

  get size(): number {
    return this.secrets.size;
  }

  redact(text: string): string {
    if (this.secrets.size === 0 || !text) return text;
    return render(text, this.find(text), 0, text.length);
  }

  /**
   * How many characters at the end of a streamed text are held back until more arrive
   * (`StreamRedactor`): one less than the longest a match of any secret's form can be, counting
   * each character other than an ASCII letter or digit escaped once (`\u002d`, `%2D`, `&#x2d;`)
   * and the list-of-characters form; at most MAX_STREAM_HOLD.
   */
  holdLength(): number {
    if (this.secrets.size === 0) return 0;
    if (!this.pattern) this.compile();
    return this.hold;
  }

  /**
   * Redacts the part of `text` that no later text can change: everything but the last
   * `holdLength()` characters, or less when a secret found there reaches into them (then up to its
   * end, the secret redacted whole). `final`: there is no later text, all of it is redacted.
   * Returns the redacted part and the rest (unredacted, for the next call).
   */
  redactPrefix(text: string, final: boolean): { safe: string; rest: string } {
    if (this.secrets.size === 0) return { safe: text, rest: '' };
    const found = this.find(text);
    let cut = final ? text.length : Math.max(0, text.length - this.holdLength());
    // a match that starts before the cut is whole (it is at most holdLength + 1 long): keep it whole
    for (const f of found) if (f.start < cut && f.end > cut) cut = f.end;
    return { safe: render(text, found, 0, cut), rest: text.slice(cut) };
  }

  /** Every secret in `text`, in order, not overlapping: the forms first, then pieces in the gaps between them. */
  private find(text: string): Found[] {
    if (!this.pattern) this.compile();
    const re = this.pattern!;
    const whole: Found[] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const group = m.findIndex((x, i) => i > 0 && x !== undefined);
      whole.push({ start: m.index, end: m.index + m[0].length, name: group > 0 ? this.names[group - 1] : undefined });
    }
    // (no spread of these lists into a call: a hostile text can hold more matches than a call takes arguments)
    const out: Found[] = [];
    let from = 0;
    for (const f of whole) {
      this.findPieces(text, from, f.start, out);
      out.push(f);
      from = f.end;
    }
    this.findPieces(text, from, text.length, out);
    return out;
  }

  private compile(): void {
    const forms = new Map<string, string>(); // form → name (the first secret that has it)
    for (const [secret, name] of this.secrets) {
      for (const f of secretForms(secret)) if (!forms.has(f)) forms.set(f, name);
    }
    const ordered = [...forms.keys()].sort((a, b) => b.length - a.length);
    const secrets = [...this.secrets].sort(([a], [b]) => b.length - a.length);
    // the secret as a list of its characters (`["g", "h", ...]`) is longer than any literal form
    const alternatives: [string, string][] = [];
    for (const [secret, name] of secrets) if ([...secret].length >= 2) alternatives.push([characterListPattern(secret), name]);
    // percent-encoded whole, every byte as %XX in either case (not only those URLs must escape)
    for (const [secret, name] of secrets) alternatives.push([[...Buffer.from(secret, 'utf8')].map((b) => `%${hexPattern(b, 2)}`).join(''), name]);
    for (const f of ordered) alternatives.push([flexiblePattern(f), forms.get(f)!]);
    this.names = alternatives.map(([, name]) => name);
    // `i`: a secret echoed in another letter case is the same secret (a server that upper-cases)
    this.pattern = new RegExp(alternatives.map(([p]) => `(${p})`).join('|'), 'gi');
    let longest = 0;
    for (const [secret] of secrets) longest = Math.max(longest, longestMatch(secret));
    for (const f of ordered) longest = Math.max(longest, escapedLength(f));
    this.hold = Math.min(MAX_STREAM_HOLD, longest - 1);
    // pieces: any run of at least half a secret that starts or ends it contains its first or its
    // last `half` characters; those are found, then the match is widened over the rest of the piece
    this.pieces = [];
    for (const [secret, name] of secrets) {
      const chars = [...secret];
      const half = Math.max(MIN_PIECE, Math.ceil(chars.length / 2));
      if (half >= chars.length) continue;
      this.pieces.push({ head: chars.slice(0, half).join(''), tail: chars.slice(chars.length - half).join(''), secret, name });
    }
    this.piecePattern = this.pieces.length === 0 ? undefined : new RegExp(this.pieces.flatMap((p) => [`(${escapeRegExp(p.head)})`, `(${escapeRegExp(p.tail)})`]).join('|'), 'gi');
  }

  private pieces: { head: string; tail: string; secret: string; name: string }[] = [];
  private piecePattern: RegExp | undefined;

  /** Adds to `out` the pieces of secrets (at least half of one, from its start or to its end) in `text.slice(from, to)`. */
  private findPieces(text: string, from: number, to: number, out: Found[]): void {
    const re = this.piecePattern;
    if (!re || to <= from) return;
    const part = text.slice(from, to);
    let done = 0; // `part` before this is already a piece
    re.lastIndex = 0;
    for (let m = re.exec(part); m; m = re.exec(part)) {
      const g = m.slice(1).findIndex((x) => x !== undefined);
      const piece = this.pieces[g >> 1];
      let start = m.index;
      let end = m.index + m[0].length;
      if (g % 2 === 0) {
        // a head: widen forward over the secret's next characters
        let k = piece.head.length;
        while (k < piece.secret.length && end < part.length && sameLetter(part[end], piece.secret[k])) {
          end++;
          k++;
        }
      } else {
        // a tail: widen backward over the secret's earlier characters (not into the previous piece)
        let k = piece.secret.length - piece.tail.length - 1;
        while (k >= 0 && start > done && sameLetter(part[start - 1], piece.secret[k])) {
          start--;
          k--;
        }
      }
      out.push({ start: from + start, end: from + end, name: piece.name });
      done = end;
      re.lastIndex = end;
    }
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

/** `text.slice(from, to)` with the `found` secrets inside it replaced by `«redacted:NAME»`. */
function render(text: string, found: Found[], from: number, to: number): string {
  let out = '';
  let at = from;
  for (const f of found) {
    if (f.start < from || f.end > to) continue;
    out += text.slice(at, f.start) + (f.name === undefined ? '«redacted»' : `«redacted:${f.name}»`);
    at = f.end;
  }
  return out + text.slice(at, to);
}

/** The same character, letter case aside (the piece widening; the patterns have the `i` flag). */
function sameLetter(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase();
}

/**
 * What a server that receives a secret may make of it before echoing it: trimmed of whitespace
 * around it, and in Unicode's composed, decomposed and compatibility forms (NFC, NFD, NFKC; `ﬁ` →
 * `fi`, full-width `Ａ` → `A`), also trimmed. Letter case is handled by the match itself.
 */
export function variants(secret: string): string[] {
  const out = new Set<string>();
  for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD'] as const) {
    const n = secret.normalize(form);
    out.add(n);
    out.add(n.trim());
  }
  out.add(secret.trim());
  out.delete(secret);
  out.delete('');
  return [...out];
}

/** The most characters one character of a form takes once escaped (`\\u002d` escaped twice, `%25E2%2580%2599`, `&#x2019;`). */
function escapedWidth(ch: string): number {
  if (/^[A-Za-z0-9]$/.test(ch)) return 1;
  return Math.max(12, 7 * Buffer.byteLength(ch, 'utf8'));
}

function escapedLength(form: string): number {
  let n = 0;
  for (const ch of form) n += escapedWidth(ch);
  return n;
}

/** The longest match of a secret's own forms: as a list of escaped characters (`"a", "\u002d"`), percent-encoded whole. */
function longestMatch(secret: string): number {
  const chars = [...secret];
  const list = chars.reduce((n, ch) => n + escapedWidth(ch) + 2, 0) + 3 * (chars.length - 1);
  return Math.max(list, 3 * Buffer.byteLength(secret, 'utf8'));
}

/**
 * Redacts a text that arrives in chunks (a model's streamed reply): what it returns never holds a
 * secret, nor a part of one that the next chunks would complete. It holds back the last
 * `Redactor.holdLength()` characters (those could begin a secret that has not all arrived) and
 * releases them as more text comes (in batches of at least STREAM_BATCH characters) or at `end()`.
 * Each scan costs the batch and the held tail, never the whole text so far.
 */
export class StreamRedactor {
  private held = '';

  constructor(private readonly redactor: Redactor) {}

  /** The redacted text that `chunk` releases (possibly empty). */
  push(chunk: string): string {
    const text = this.held + chunk;
    const hold = this.redactor.holdLength();
    if (hold === 0) return text; // no secret known (yet)
    // scanned once STREAM_BATCH characters more than the hold have come, not at every token: each
    // scan reads the held tail again, so one per few characters would read it hundreds of times
    if (text.length < hold + STREAM_BATCH) {
      this.held = text;
      return '';
    }
    const { safe, rest } = this.redactor.redactPrefix(text, false);
    this.held = rest;
    return safe;
  }

  /** How many characters are held back now (at most `holdLength()` + a batch + the last chunk). */
  get heldLength(): number {
    return this.held.length;
  }

  /** The rest, redacted: the stream has ended. */
  end(): string {
    const { safe } = this.redactor.redactPrefix(this.held, true);
    this.held = '';
    return safe;
  }
}

/** The most characters a stream holds back (`Redactor.holdLength`). */
export const MAX_STREAM_HOLD = 4096;

/** A stream is scanned when this many characters past the hold have come (StreamRedactor.push). */
const STREAM_BATCH = 64;


/** Secrets known ahead of use shorter than this are added only when resolved (`Redactor.addKnown`). */
export const MIN_KNOWN_SECRET = 8;

/** Encoded forms shorter than this are not redacted (a secret itself always is). */
export const MIN_ENCODED = 6;

/**
 * A piece of a secret (half of it, from its start or to its end) shorter than this is not redacted:
 * the piece of a short secret is ordinary text. A 10-character test token, `test-token`, made every
 * `test-tool` the MCP conformance suite's server listed into «redacted»ol, and the tool was then
 * not found. Secrets of 16 characters or more (real tokens and keys) lose any half, as before.
 */
export const MIN_PIECE = 8;

/**
 * The literal forms of a secret the Redactor looks for (each is also matched escaped, see
 * `flexiblePattern`): the secret, its whole base64 encoding (standard, padded; URL-safe,
 * unpadded), and the characters of a longer text's base64 encoding that depend on the secret's
 * bytes alone, for each of the three offsets the secret can start at (mod 3).
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const bytes = Buffer.from(secret, 'utf8');
  const chars = [...secret];
  // hexadecimal (either case) and reversed (the secret's pieces: Redactor.compile)
  const hex = bytes.toString('hex');
  if (hex.length >= MIN_ENCODED) {
    forms.add(hex);
    forms.add(hex.toUpperCase());
  }
  const reversed = chars.slice().reverse().join('');
  if (chars.length >= 2 && reversed !== secret) forms.add(reversed);

  const urlSafe = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const add = (form: string) => {
    if (form.length >= MIN_ENCODED) forms.add(form);
  };
  const whole = bytes.toString('base64');
  add(whole);
  add(urlSafe(whole));
  for (const k of [0, 1, 2]) {
    const length = k + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    // characters before `start` mix in the bytes before the secret; after `end`, the bytes after it
    const start = k === 0 ? 0 : k + 1;
    const end = Math.floor(length / 3) * 4 + (length % 3);
    const core = encoded.slice(start, end);
    add(core);
    add(urlSafe(core));
  }
  return [...forms];
}

const JSON_SHORT: Record<string, string> = { '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };
const HTML_NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&(?:#39|apos);' };

/** `n` in hexadecimal, at least `width` digits, each letter matching either case. */
function hexPattern(n: number, width: number): string {
  return n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * A regular expression source matching `literal` with each character other than an ASCII letter
 * or digit written as is or in any of its escapes: JSON (`\"`, `\\`, `\/`, `\n`..., `\u00XX`,
 * with any number of backslashes, i.e. escaped once or more), percent-encoding of its UTF-8 bytes
 * (any hex case, also encoded again: `%2522`), `+` for a space, and HTML character references.
 */
export function flexiblePattern(literal: string): string {
  let out = '';
  for (const ch of literal) {
    if (/[A-Za-z0-9]/.test(ch)) {
      out += ch;
      continue;
    }
    const alts: string[] = [];
    if (ch === '\\') alts.push('\\\\+');
    else if (ch === '"' || ch === '/' || ch === "'") alts.push(`\\\\*${escapeRegExp(ch)}`);
    else alts.push(escapeRegExp(ch));
    if (JSON_SHORT[ch]) alts.push(`\\\\+${JSON_SHORT[ch]}`);
    let units = '';
    for (let i = 0; i < ch.length; i++) units += `\\\\+u${hexPattern(ch.charCodeAt(i), 4)}`;
    alts.push(units);
    alts.push([...Buffer.from(ch, 'utf8')].map((b) => `%(?:25)*${hexPattern(b, 2)}`).join(''));
    if (ch === ' ') alts.push('\\+');
    const cp = ch.codePointAt(0)!;
    alts.push(`&#0*${cp};`, `&#[xX]0*${hexPattern(cp, 1)};`);
    if (HTML_NAMED[ch]) alts.push(HTML_NAMED[ch]);
    out += `(?:${alts.join('|')})`;
  }
  return out;
}

/** A regular expression source matching `secret` written as a list of its characters: `["a", "b"]`, `['a','b']`. */
function characterListPattern(secret: string): string {
  return [...secret].map((c) => `["']${flexiblePattern(c)}["']`).join('\\s*,\\s*');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
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
  readySecrets(): Promise<{ name: string; secret: string }[]> {
    return this.inner.readySecrets?.() ?? Promise.resolve([]);
  }
  files(): string[] {
    return this.inner.files?.() ?? [];
  }
  async save(name: string, secret: string): Promise<void> {
    if (!this.inner.save) throw new VaultError(`no vault can keep "${name}" (the run's vaults are read-only)`);
    this.redactor.add(name, secret);
    await this.inner.save(name, secret);
  }
  /** Adds every secret of the inner vault's `readySecrets()` to the Redactor now (the host does, before the program starts). */
  async registerReady(): Promise<void> {
    for (const { name, secret } of await this.readySecrets()) this.redactor.addKnown(name, secret);
  }
}
