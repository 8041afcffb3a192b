// Turn's OAuthClientProvider for the SDK's `auth()` (discovery, PKCE, registration, token
// exchange and refresh are the SDK's): what it keeps goes to the vault (state.ts), the redirect
// comes back to a one-shot loopback listener (loopback.ts), and the authorization URL goes to the
// run's opener (browser.ts, or the editor's). It adds the checks the SDK leaves to it: the
// authorization server's metadata must name the issuer it was fetched for (RFC 8414 §3.3), its
// endpoints must be https (or this machine), and the issuer's origin is the only one the client's
// credentials go to (as-fetch.ts).
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpError } from '../server.js';
import { secureEnough } from './as-fetch.js';
import { CALLBACK_PATH, type Loopback } from './loopback.js';
import type { OpenUrl } from './options.js';
import type { OAuthState, ServerState } from './state.js';

/** A client the operator registered with the authorization server beforehand (the vault's `<name>.client`). */
export interface PreRegisteredClient {
  client_id: string;
  client_secret?: string;
}

export interface ProviderSetup {
  open: OpenUrl;
  authorizeTimeoutMs: number;
  clientMetadataUrl?: string;
  preRegistered?: PreRegisteredClient;
}

/** Two issuer identifiers are the same URL, a trailing `/` aside. */
function sameIssuer(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      return new URL(s).href.replace(/\/$/, '');
    } catch {
      return s.replace(/\/$/, '');
    }
  };
  return norm(a) === norm(b);
}

export class TurnOAuthProvider implements OAuthClientProvider {
  /** set by the flow for the time of one sign-in (fetch.ts) */
  loopback?: Loopback;
  /** the code of the redirect this sign-in waits for, from the moment its `state` was made */
  pendingCode?: Promise<string>;
  /** where the client's credentials may go: the origin of the issuer the metadata was checked against */
  issuerOrigin?: string;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  private kept: ServerState | undefined;

  constructor(
    private readonly server: URL,
    private readonly store: OAuthState,
    private readonly setup: ProviderSetup,
  ) {}

  private async current(): Promise<ServerState> {
    return (this.kept ??= await this.store.get(this.server));
  }

  private async change(f: (s: ServerState) => ServerState): Promise<void> {
    this.kept = f(await this.current());
    const next = this.kept;
    await this.store.update(this.server, () => next);
  }

  get redirectUrl(): string {
    return this.loopback?.redirectUrl ?? `http://127.0.0.1${CALLBACK_PATH}`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.setup.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Turn',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const state = randomBytes(32).toString('base64url');
    if (!this.loopback) throw new McpError('the sign-in has no redirect listener');
    this.pendingCode = this.loopback.code(state, this.setup.authorizeTimeoutMs);
    this.pendingCode.catch(() => undefined); // awaited by the flow; a sign-in that fails before it is not an unhandled rejection
    return state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.setup.preRegistered) return { ...this.setup.preRegistered, redirect_uris: [this.redirectUrl] };
    return (await this.current()).client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.setup.preRegistered) return; // the operator's, kept where the operator put it
    await this.change((s) => ({ ...s, client: info }));
  }

  async tokens(): Promise<(OAuthTokens & { expires_at?: number }) | undefined> {
    return (await this.current()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expires_at = typeof tokens.expires_in === 'number' ? Date.now() + tokens.expires_in * 1000 : undefined;
    await this.change((s) => ({
      ...s,
      // a refresh that returns no new refresh token keeps the one it used (RFC 6749 §6)
      tokens: { ...tokens, ...(tokens.refresh_token === undefined && s.tokens?.refresh_token !== undefined ? { refresh_token: s.tokens.refresh_token } : {}), ...(expires_at !== undefined ? { expires_at } : {}) },
    }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!secureEnough(url)) throw new McpError(`the authorization server's sign-in page ${url.origin}${url.pathname} is not https: refused`);
    await this.setup.open(url.href);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new McpError('no sign-in is under way');
    return this.verifier;
  }

  /** Called by `auth()` once discovery is done, before any registration or token request. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const as = state.authorizationServerUrl;
    const meta = state.authorizationServerMetadata;
    if (meta) {
      if (typeof meta.issuer !== 'string' || !sameIssuer(meta.issuer, as)) {
        throw new McpError(`the authorization server metadata fetched for ${as} names another issuer (${String(meta.issuer).slice(0, 200)}): refused (RFC 8414 §3.3)`);
      }
      for (const endpoint of [meta.authorization_endpoint, meta.token_endpoint, meta.registration_endpoint]) {
        if (endpoint !== undefined && !secureEnough(new URL(endpoint))) throw new McpError(`the authorization server ${as} has an endpoint that is not https (${endpoint.slice(0, 200)}): refused`);
      }
    }
    this.issuerOrigin = new URL(as).origin;
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    if (scope === 'all' || scope === 'client' || scope === 'tokens') {
      await this.change((s) => ({ ...(scope === 'tokens' && s.client ? { client: s.client } : {}) }));
    }
  }
}
