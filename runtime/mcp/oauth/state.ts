// What the host keeps of a sign-in, in the run's vault under `oauth:<name>` (the name of the
// program's `identity::oauth("name")` grant; `:` is in no name a grant can write, so no program
// can ask for it as a secret): per MCP server (its URL), the client registration and the tokens,
// each stamped by the SDK with the authorization server they belong to. The record is read from a
// store, so it is bounded and validated like any outside document; what it holds that is secret
// (tokens, a client secret) is given to the run's redactor as it is read or written, so the
// program, the trace and every exit never show it.
import { OAuthClientInformationFullSchema, OAuthTokensSchema, type OAuthClientInformationMixed, type OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Redactor, Vault } from '../../effects/vault.js';
import { McpError } from '../server.js';

/** The most a stored record may hold (every server one name signed in to). */
const MAX_RECORD_BYTES = 256 * 1024;

export interface ServerState {
  client?: OAuthClientInformationMixed;
  /** as the token endpoint gave them, with `expires_at` (ms since epoch) worked out from `expires_in` */
  tokens?: OAuthTokens & { expires_at?: number };
}

interface RecordV1 {
  v: 1;
  servers: Record<string, ServerState>;
}

/** The key of a server in a record: its URL without query or fragment. */
export function serverKey(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export function vaultName(name: string): string {
  return `oauth:${name}`;
}

/** Reads and writes one grant's record; every change is saved at once (a crash loses no token). */
export class OAuthState {
  constructor(
    private readonly vault: Vault,
    private readonly name: string,
    private readonly redactor?: Redactor,
  ) {}

  private async read(): Promise<RecordV1> {
    const text = await this.vault.resolve(vaultName(this.name));
    if (text === undefined) return { v: 1, servers: {} };
    if (text.length > MAX_RECORD_BYTES) throw new McpError(`the vault's OAuth record "${vaultName(this.name)}" is over ${MAX_RECORD_BYTES / 1024} KB: remove it to sign in again`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new McpError(`the vault's OAuth record "${vaultName(this.name)}" is not JSON: remove it to sign in again`);
    }
    const r = parsed as Partial<RecordV1>;
    if (typeof r !== 'object' || r === null || r.v !== 1 || typeof r.servers !== 'object' || r.servers === null || Array.isArray(r.servers)) {
      throw new McpError(`the vault's OAuth record "${vaultName(this.name)}" is not one Turn wrote: remove it to sign in again`);
    }
    return { v: 1, servers: r.servers };
  }

  /** What is kept for `server`, checked against the SDK's schemas (anything else is dropped). */
  async get(server: URL): Promise<ServerState> {
    const raw = (await this.read()).servers[serverKey(server)];
    if (typeof raw !== 'object' || raw === null) return {};
    const out: ServerState = {};
    const client = OAuthClientInformationFullSchema.partial({ redirect_uris: true }).safeParse(raw.client);
    if (client.success) out.client = client.data;
    const tokens = OAuthTokensSchema.safeParse(raw.tokens);
    if (tokens.success) {
      const at = (raw.tokens as { expires_at?: unknown }).expires_at;
      out.tokens = { ...tokens.data, ...(typeof at === 'number' && Number.isFinite(at) ? { expires_at: at } : {}) };
    }
    this.remember(out);
    return out;
  }

  async update(server: URL, change: (s: ServerState) => ServerState): Promise<void> {
    const record = await this.read();
    const key = serverKey(server);
    const next = change(record.servers[key] ?? {});
    this.remember(next);
    record.servers[key] = next;
    if (!this.vault.save) throw new McpError(`the run's vault cannot keep the tokens of identity::oauth("${this.name}")`);
    await this.vault.save(vaultName(this.name), JSON.stringify(record));
  }

  /** The redactor learns each secret before anything could show it. */
  private remember(s: ServerState): void {
    if (!this.redactor) return;
    const n = vaultName(this.name);
    for (const secret of [s.tokens?.access_token, s.tokens?.refresh_token, s.tokens?.id_token, (s.client as { client_secret?: string } | undefined)?.client_secret]) {
      if (typeof secret === 'string' && secret !== '') this.redactor.add(n, secret);
    }
  }
}
