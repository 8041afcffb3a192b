// OAuth 2.1 for MCP servers over Streamable HTTP (the authorization section of the 2025-11-25
// revision), on the official SDK's client auth: `identity::oauth("name")` given to `mcp_*` with an
// HTTP server signs in on the server's first 401 and keeps what it obtains in the vault under
// `oauth:name` (docs/mcp.md, *Authorization*). The program holds the handle only: no token is
// ever a Turn value, an event or a journal entry.
import type { KeyObject } from 'node:crypto';
import { nodeCrypto } from '../../hash.js';
import type { ApprovalHook, ApprovalRecord, Capabilities } from '../../effects/capabilities.js';
import { describeIdentity, type IdentityHandle } from '../../effects/identity.js';
import type { Redactor, Vault } from '../../effects/vault.js';
import { McpError } from '../server.js';
import { authorizationFetch } from './as-fetch.js';
import { systemOpener } from './browser.js';
import { requestAuthorizationGrant, type IdentityProvider } from './enterprise.js';
import { signInFetch } from './flow.js';
import { DEFAULT_AUTHORIZE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, type OAuthOptions } from './options.js';
import { TurnOAuthProvider, type EnterpriseGrant, type MachineClient, type PreRegisteredClient } from './provider.js';
import { OAuthState } from './state.js';

export type { OAuthOptions, OpenUrl } from './options.js';

export interface SignInAuthority {
  capabilities: Capabilities;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  pid?: number;
  vault?: Vault;
  redactor?: Redactor;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof globalThis.fetch;
  oauth?: OAuthOptions;
}

/**
 * The operator's pre-registered client for a grant: the vault's secret `<name>.client`
 * (`TURN_SECRET_<NAME>_CLIENT`, or the `--secrets` file), `client_id` or `client_id:client_secret`.
 */
async function preRegistered(vault: Vault | undefined, name: string, redactor: Redactor | undefined): Promise<PreRegisteredClient | undefined> {
  const value = await vault?.resolve(`${name}.client`);
  if (value === undefined) return undefined;
  const i = value.indexOf(':');
  const client_id = i < 0 ? value : value.slice(0, i);
  const client_secret = i < 0 ? undefined : value.slice(i + 1);
  if (client_id === '' || /[\r\n\0]/.test(value)) throw new McpError(`the secret "${name}.client" is not client_id or client_id:client_secret`);
  if (client_secret) redactor?.add(`${name}.client`, client_secret);
  return { client_id, ...(client_secret ? { client_secret } : {}) };
}

/** A private key's JWS algorithm, from its type (EC P-256/384/521, RSA, Ed25519). */
function algorithmOf(pem: string, name: string): string {
  let key: KeyObject;
  try {
    key = nodeCrypto().createPrivateKey(pem);
  } catch {
    throw new McpError(`the secret "${name}.client_key" is not a PEM private key`);
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') return 'ES384';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp521r1') return 'ES512';
  throw new McpError(`the key in "${name}.client_key" is of a type private_key_jwt does not use (${key.asymmetricKeyType ?? 'unknown'}${curve ? ` ${curve}` : ''})`);
}

/** The operator's machine client for a grant (the client credentials grant): `<name>.client_credentials`, and `<name>.client_key` for private_key_jwt. */
async function machineClient(vault: Vault | undefined, name: string, redactor: Redactor | undefined): Promise<MachineClient | undefined> {
  const value = await vault?.resolve(`${name}.client_credentials`);
  if (value === undefined) return undefined;
  const i = value.indexOf(':');
  const client_id = i < 0 ? value : value.slice(0, i);
  const client_secret = i < 0 ? undefined : value.slice(i + 1);
  if (client_id === '' || /[\r\n\0]/.test(value)) throw new McpError(`the secret "${name}.client_credentials" is not client_id or client_id:client_secret`);
  if (client_secret) redactor?.add(`${name}.client_credentials`, client_secret);
  const pem = await vault?.resolve(`${name}.client_key`);
  if (!client_secret && pem === undefined) throw new McpError(`the machine client "${name}.client_credentials" has no secret: give it one (client_id:client_secret) or a private key in "${name}.client_key"`);
  return { client_id, ...(client_secret ? { client_secret } : {}), ...(pem !== undefined ? { key: { pem, alg: algorithmOf(pem, name) } } : {}) };
}

/**
 * The operator's enterprise identity provider for a grant (SEP-990): the vault's `<name>.idp`, a
 * JSON object `{"token_endpoint", "client_id", "client_secret"?, "id_token"}` — the ID token the
 * operator's single sign-on gave them. The exchange goes to that token endpoint's origin only.
 */
async function enterpriseGrant(a: SignInAuthority, name: string, timeoutMs: number): Promise<EnterpriseGrant | undefined> {
  const value = await a.vault?.resolve(`${name}.idp`);
  if (value === undefined) return undefined;
  let idp: Partial<Record<keyof IdentityProvider, unknown>>;
  try {
    idp = JSON.parse(value) as typeof idp;
  } catch {
    idp = {};
  }
  const { token_endpoint, client_id, client_secret, id_token } = idp;
  if (typeof token_endpoint !== 'string' || !URL.canParse(token_endpoint) || typeof client_id !== 'string' || typeof id_token !== 'string' || (client_secret !== undefined && typeof client_secret !== 'string')) {
    throw new McpError(`the secret "${name}.idp" is not {"token_endpoint": URL, "client_id": Str, "client_secret"?: Str, "id_token": Str}`);
  }
  for (const s of [id_token, client_secret]) if (typeof s === 'string') a.redactor?.add(`${name}.idp`, s);
  const origin = new URL(token_endpoint).origin;
  const fetchFn = authorizationFetch(a, timeoutMs, () => origin);
  const config: IdentityProvider = { token_endpoint, client_id, id_token, ...(typeof client_secret === 'string' ? { client_secret } : {}) };
  return async (audience, resource, scope) => {
    const grant = await requestAuthorizationGrant(config, audience, resource, scope, fetchFn);
    a.redactor?.add(`${name}.idp`, grant);
    return grant;
  };
}

/** The fetch of an MCP session signed in with `identity` (an `oauth` handle); `next` is the session's own (origin-checked, bounded). */
export async function oauthSessionFetch(server: URL, identity: IdentityHandle, a: SignInAuthority, next: typeof globalThis.fetch): Promise<typeof globalThis.fetch> {
  if (!a.vault) throw new McpError(`${describeIdentity(identity)} needs the run's vault to keep its tokens`);
  const o = a.oauth ?? {};
  const requestTimeoutMs = o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const enterprise = await enterpriseGrant(a, identity.name, requestTimeoutMs);
  const provider = new TurnOAuthProvider(server, new OAuthState(a.vault, identity.name, a.redactor), {
    open: o.openUrl ?? systemOpener(a.env ?? process.env),
    authorizeTimeoutMs: o.authorizeTimeoutMs ?? DEFAULT_AUTHORIZE_TIMEOUT_MS,
    ...(o.clientMetadataUrl ? { clientMetadataUrl: o.clientMetadataUrl } : {}),
    ...(await preRegistered(a.vault, identity.name, a.redactor).then((c) => (c ? { preRegistered: c } : {}))),
    ...(await machineClient(a.vault, identity.name, a.redactor).then((c) => (c ? { machine: c } : {}))),
    ...(enterprise ? { enterprise } : {}),
  });
  const asFetch = authorizationFetch(a, requestTimeoutMs, () => provider.issuerOrigin);
  return signInFetch(server, provider, next, asFetch, o.whileAPersonActs);
}
