// Enterprise-managed authorization (SEP-990, cross-app access), its first step: the operator's
// identity provider exchanges the ID token it gave them (RFC 8693 token exchange) for a JWT
// authorization grant (ID-JAG) naming this authorization server and resource; the token endpoint
// then takes it for an access token (the jwt-bearer grant, provider.ts). The request is the one
// the 2.x SDK's `requestJwtAuthorizationGrant` makes; written here because that package's bundle
// would add 400 KB to every CLI start for this one extension. `fetchFn` holds it to the identity
// provider's origin and bounds it (as-fetch.ts).
import { OAuthErrorResponseSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpError } from '../server.js';

export interface IdentityProvider {
  token_endpoint: string;
  client_id: string;
  client_secret?: string;
  id_token: string;
}

const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

export async function requestAuthorizationGrant(idp: IdentityProvider, audience: string, resource: string, scope: string | undefined, fetchFn: typeof globalThis.fetch): Promise<string> {
  const params = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: ID_JAG,
    audience,
    resource,
    subject_token: idp.id_token,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    client_id: idp.client_id,
    ...(idp.client_secret ? { client_secret: idp.client_secret } : {}),
    ...(scope ? { scope } : {}),
  });
  const response = await fetchFn(idp.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: params.toString() });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const e = OAuthErrorResponseSchema.safeParse(body);
    const said = e.success ? `${e.data.error}${e.data.error_description ? `: ${e.data.error_description}` : ''}` : `HTTP ${response.status}`;
    throw new McpError(`the identity provider refused the token exchange (${said.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, 200)})`);
  }
  if (typeof body.access_token !== 'string' || body.access_token === '' || body.issued_token_type !== ID_JAG) {
    throw new McpError('the identity provider answered the token exchange without an ID-JAG (issued_token_type must be urn:ietf:params:oauth:token-type:id-jag)');
  }
  return body.access_token;
}
