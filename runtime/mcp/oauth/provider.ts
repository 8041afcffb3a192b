// Turn's OAuthClientProvider for the SDK's `auth()` (discovery, PKCE, registration, token
// exchange and refresh are the SDK's): what it keeps goes to the vault (state.ts), the redirect
// comes back to a one-shot loopback listener (loopback.ts), and the authorization URL goes to the
// run's opener (browser.ts, or the editor's). It adds the checks the SDK leaves to it: the
// authorization server's metadata must name the issuer it was fetched for (RFC 8414 §3.3), its
// endpoints must be https (or this machine), and the issuer's origin is the only one the client's
// credentials go to (as-fetch.ts).
import { nodeCrypto } from '../../hash.js';
import type { AddClientAuthentication, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpError } from '../server.js';
import { secureEnough } from './as-fetch.js';
import { CALLBACK_PATH, type ExpectedIssuer, type Loopback } from './loopback.js';
import type { OpenUrl } from './options.js';
import type { OAuthState, ServerState } from './state.js';

/** A client the operator registered with the authorization server beforehand (the vault's `<name>.client`). */
export interface PreRegisteredClient {
  client_id: string;
  client_secret?: string;
}

/**
 * A machine client (the client credentials grant, SEP-1046: no person signs in): the vault's
 * `<name>.client_credentials` (`client_id:client_secret`, or `client_id` with a PKCS#8 private key
 * in `<name>.client_key` for private_key_jwt).
 */
export interface MachineClient {
  client_id: string;
  client_secret?: string;
  /** private_key_jwt: the key and its JWS algorithm */
  key?: { pem: string; alg: string };
}

/**
 * Enterprise-managed authorization (SEP-990, cross-app access): no person signs in here; the
 * operator's enterprise identity provider vouches for them. `grant` asks it for a JWT authorization
 * grant (ID-JAG) for this authorization server and resource, which the token endpoint takes for an
 * access token (the jwt-bearer grant), with the pre-registered client's credentials.
 */
export type EnterpriseGrant = (audience: string, resource: string, scope: string | undefined) => Promise<string>;

export interface ProviderSetup {
  open: OpenUrl;
  authorizeTimeoutMs: number;
  clientMetadataUrl?: string;
  preRegistered?: PreRegisteredClient;
  machine?: MachineClient;
  enterprise?: EnterpriseGrant;
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
  private pendingCode?: Promise<string>;
  /** where the client's credentials may go: the origin of the issuer the metadata was checked against */
  issuerOrigin?: string;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  private kept: ServerState | undefined;
  /** private_key_jwt: a signed assertion in each token request (the SDK's) */
  readonly addClientAuthentication: AddClientAuthentication | undefined;

  constructor(
    private readonly server: URL,
    private readonly store: OAuthState,
    private readonly setup: ProviderSetup,
  ) {
    const m = setup.machine;
    if (m?.key) this.addClientAuthentication = createPrivateKeyJwtAuth({ issuer: m.client_id, subject: m.client_id, privateKey: m.key.pem, alg: m.key.alg });
  }

  private async current(): Promise<ServerState> {
    return (this.kept ??= await this.store.get(this.server));
  }

  private async change(f: (s: ServerState) => ServerState): Promise<void> {
    this.kept = f(await this.current());
    const next = this.kept;
    await this.store.update(this.server, () => next);
  }

  /** A person signs in (authorization code); a machine client asks the token endpoint alone. */
  get interactive(): boolean {
    return this.setup.machine === undefined && this.setup.enterprise === undefined;
  }

  /** Undefined for a machine client: that is how `auth()` knows to ask for a token without a redirect. */
  get redirectUrl(): string | undefined {
    if (!this.interactive) return undefined;
    return this.loopback?.redirectUrl ?? `http://127.0.0.1${CALLBACK_PATH}`;
  }


  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (this.setup.enterprise) {
      const audience = this.discovery?.authorizationServerMetadata?.issuer ?? this.discovery?.authorizationServerUrl;
      const resource = this.discovery?.resourceMetadata?.resource ?? `${this.server.origin}${this.server.pathname}`;
      if (!audience) throw new McpError('enterprise-managed authorization needs the authorization server discovered first');
      const assertion = await this.setup.enterprise(audience, resource, scope);
      return new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, ...(scope ? { scope } : {}) });
    }
    if (this.interactive) return undefined;
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  }

  get clientMetadataUrl(): string | undefined {
    return this.setup.clientMetadataUrl;
  }

  /** RFC 7591 metadata, with OpenID Connect's `application_type` (which the SDK's type lacks; it sends every field given) */
  get clientMetadata(): OAuthClientMetadata & { application_type?: 'native' | 'web' } {
    if (this.setup.machine) return { client_name: 'Turn', redirect_uris: [], grant_types: ['client_credentials'], token_endpoint_auth_method: this.setup.machine.key ? 'private_key_jwt' : 'client_secret_basic' };
    return {
      client_name: 'Turn',
      // a loopback redirect on the operator's machine: a native application (SEP-837; OpenID
      // Connect Dynamic Registration §2), which the 2026-07-28 revision requires to be said
      application_type: 'native',
      redirect_uris: [this.redirectUrl ?? ''],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const state = nodeCrypto().randomBytes(32).toString('base64url');
    if (!this.loopback) throw new McpError('the sign-in has no redirect listener');
    this.pendingCode = this.loopback.code(state, this.setup.authorizeTimeoutMs, undefined, this.expectedIssuer());
    this.pendingCode.catch(() => undefined); // awaited by the flow; a sign-in that fails before it is not an unhandled rejection
    return state;
  }

  /**
   * Who must answer this sign-in (RFC 9207, SEP-2468): the issuer recorded from the authorization
   * server metadata (`auth()` calls `state()` after discovery). Without metadata (a 2025-03-26
   * server's fallback endpoints) no issuer was recorded and none is compared.
   */
  private expectedIssuer(): ExpectedIssuer | undefined {
    const meta = this.discovery?.authorizationServerMetadata as (Record<string, unknown> & { issuer?: unknown }) | undefined;
    if (typeof meta?.issuer !== 'string') return undefined;
    return { issuer: meta.issuer, required: meta.authorization_response_iss_parameter_supported === true };
  }

  /** The code the browser brings back to the loopback listener, for the `state` this sign-in sent (once). */
  redirected(): Promise<string> {
    const pending = this.pendingCode;
    this.pendingCode = undefined;
    if (!pending) throw new McpError('the sign-in started without its state');
    return pending;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.setup.machine) return { client_id: this.setup.machine.client_id, ...(this.setup.machine.client_secret ? { client_secret: this.setup.machine.client_secret } : {}) };
    if (this.setup.preRegistered) return { ...this.setup.preRegistered, redirect_uris: [this.redirectUrl ?? ''] };
    return (await this.current()).client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.setup.preRegistered || this.setup.machine) return; // the operator's, kept where the operator put it
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
      // A server of the 2025-03-26 revision has no protected resource metadata: its origin is the
      // authorization base URL, and the metadata found there may name an issuer under a path of it
      // (the SDK's fallback). That is the one difference accepted: an issuer on the same origin.
      const legacy = state.resourceMetadata === undefined && typeof meta.issuer === 'string' && URL.canParse(meta.issuer) && new URL(meta.issuer).origin === new URL(as).origin;
      if (typeof meta.issuer !== 'string' || (!sameIssuer(meta.issuer, as) && !legacy)) {
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
      await this.change((s) => ({ ...(scope === 'tokens' && s.client ? { client: s.client } : {}), ...(scope === 'client' && s.tokens ? { tokens: s.tokens } : {}) }));
    }
  }
}
