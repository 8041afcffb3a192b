// AWS Signature Version 4 for a model call (Bedrock): the host signs the request at the moment it
// sends it, with the credentials read then from the environment variables the provider names
// (never held by the provider, never in the request the trace shows). The signer is Smithy's
// (@smithy/signature-v4, the AWS SDK's own), loaded on the first signed call so a run that never
// calls Bedrock never loads it (test/cli/coldstart.test.ts).
import type { SigV4Auth } from './types.js';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * The headers of `url`'s POST with `body`, signed: `host`, `x-amz-date`, `x-amz-security-token`
 * (with a session token) and `authorization`. `date` is for tests (a fixed signing time).
 */
export async function signRequest(auth: Pick<SigV4Auth, 'service' | 'region'>, credentials: SigV4Credentials, url: string, headers: Record<string, string>, body: string, date?: Date): Promise<Record<string, string>> {
  const [{ SignatureV4 }, { Hash }] = await Promise.all([import('@smithy/signature-v4'), import('@smithy/hash-node')]);
  const signer = new SignatureV4({
    service: auth.service,
    region: auth.region,
    credentials,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: true,
  });
  const u = new URL(url);
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) query[k] = v;
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: u.protocol,
      hostname: u.hostname,
      ...(u.port ? { port: Number(u.port) } : {}),
      path: u.pathname,
      query,
      headers: { ...headers, host: u.host },
      body,
    },
    date ? { signingDate: date } : {},
  );
  return signed.headers;
}
