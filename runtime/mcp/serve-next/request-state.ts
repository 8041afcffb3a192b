// The `requestState` a served run that waits for an answer hands the client (2026-07-28's
// `input_required` result), and the check of the one a client's retry brings back. It names the
// durable run, so it is the client's claim on that run: it is signed (HMAC-SHA256) with a secret
// of the server's, and a retry whose state does not verify resumes nothing. The secret lives in the
// store folder (STATE_KEY_FILE, owner-only), so a state minted before a restart of `turn mcp`
// still opens the run after it. The state is signed, not encrypted: it holds a run id, a call
// fingerprint and an expiry, nothing the client may not see.
import { nodeCrypto } from '../../hash.js';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The file in the store folder that holds the signing secret (32 random bytes, base64url). */
export const STATE_KEY_FILE = 'mcp-request-state.key';
/** How long a minted state opens its run (a person may take a while to answer). */
export const STATE_TTL_SECONDS = 24 * 60 * 60;
/** The longest state accepted: anything longer was not minted here, and is not parsed. */
const MAX_STATE_LENGTH = 2048;

/** What a state names: the durable run and the call it was made for. */
export interface RunClaim {
  run: string;
  /** the call's fingerprint (call-key.ts): a state is good only for a retry of the same call */
  call: string;
  /** a call paused in memory (paused-calls.ts): the round this state answers, so it opens it once */
  round?: number;
  /** with --store, a call paused at a question: its durable run, which a retry after a restart resumes */
  durable?: string;
}

export class RequestStateError extends Error {}

/** The secret of `dir` (made on first use, owner-only). Throws RequestStateError when it is unusable. */
export function stateSecret(dir: string): Buffer {
  const file = path.join(dir, STATE_KEY_FILE);
  try {
    fs.writeFileSync(file, nodeCrypto().randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new RequestStateError(`cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const stat = fs.statSync(file);
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    throw new RequestStateError(`${file} is accessible to other users; refusing to sign with it. Run: chmod 600 ${file}`);
  }
  const secret = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url');
  if (secret.length < 32) throw new RequestStateError(`${file} holds fewer than 32 bytes of secret`);
  return secret;
}

const mac = (secret: Buffer, body: string): Buffer => nodeCrypto().createHmac('sha256', secret).update(`turn.mcp.requestState\0${body}`).digest();

/** The state for `claim`: `v1.<payload>.<mac>`, both base64url. */
export function mintState(secret: Buffer, claim: RunClaim, nowSeconds = Math.floor(Date.now() / 1000), ttlSeconds = STATE_TTL_SECONDS): string {
  const body = Buffer.from(JSON.stringify({ run: claim.run, call: claim.call, ...(claim.round !== undefined ? { round: claim.round } : {}), ...(claim.durable !== undefined ? { durable: claim.durable } : {}), exp: nowSeconds + ttlSeconds })).toString('base64url');
  return `v1.${body}.${mac(secret, body).toString('base64url')}`;
}

/** The claim a state a client sent back makes, once its signature and expiry check. Throws RequestStateError. */
export function openState(secret: Buffer, state: unknown, nowSeconds = Math.floor(Date.now() / 1000)): RunClaim {
  if (typeof state !== 'string' || state.length > MAX_STATE_LENGTH) throw new RequestStateError('requestState is not one this server made');
  const parts = state.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') throw new RequestStateError('requestState is not one this server made');
  const given = Buffer.from(parts[2], 'base64url');
  const expected = mac(secret, parts[1]);
  if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected)) throw new RequestStateError('requestState does not verify (altered, or made by another server)');
  let claim: unknown;
  try {
    claim = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw new RequestStateError('requestState is not one this server made');
  }
  const c = claim as Record<string, unknown>;
  if (typeof c.run !== 'string' || typeof c.call !== 'string' || typeof c.exp !== 'number' || (c.round !== undefined && typeof c.round !== 'number') || (c.durable !== undefined && typeof c.durable !== 'string')) throw new RequestStateError('requestState is not one this server made');
  if (c.exp < nowSeconds) throw new RequestStateError('requestState has expired: call the tool again');
  return { run: c.run, call: c.call, ...(typeof c.round === 'number' ? { round: c.round } : {}), ...(typeof c.durable === 'string' ? { durable: c.durable } : {}) };
}
