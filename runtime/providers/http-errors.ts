// How HTTP providers classify failures: what is retried (429, 408, 5xx, 529) and how long to wait.
import { ProviderError, type HttpResult } from './types.js';

/** Milliseconds from `retry-after-ms` / `retry-after` (seconds or an HTTP date), if present. */
export function retryAfterMs(headers: Record<string, string>): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers['retry-after'];
  if (ra === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A ProviderError for a non-2xx response; `service` names the API in the message. */
export function httpError(service: string, url: string, res: HttpResult): ProviderError {
  let detail = '';
  try {
    const j = JSON.parse(res.body) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
    if (typeof j.error === 'string') detail = j.error;
    else if (j.error && typeof j.error.message === 'string') detail = j.error.message;
    else if (typeof j.message === 'string') detail = j.message;
  } catch {
    detail = res.body.slice(0, 200).trim();
  }
  const retryable = res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
  const what =
    res.status === 429 ? 'rate limited' :
    res.status === 401 || res.status === 403 ? 'not authorized (check the API key)' :
    res.status === 404 ? 'not found (check the base URL and the model name)' :
    res.status >= 500 ? 'server error' : 'request refused';
  return new ProviderError(
    `${service} ${what}: HTTP ${res.status} from ${url}${detail ? `: ${detail}` : ''}`,
    retryable,
    res.status,
    retryable ? retryAfterMs(res.headers) : undefined,
  );
}

export function parseBody(service: string, url: string, res: HttpResult): Record<string, unknown> {
  try {
    const j = JSON.parse(res.body) as unknown;
    if (j && typeof j === 'object' && !Array.isArray(j)) return j as Record<string, unknown>;
  } catch {
    // falls through
  }
  // A body cut off in transit (or not JSON at all): worth another try.
  throw new ProviderError(`${service} sent a reply that is not a JSON object (${res.body.length} bytes; truncated?) from ${url}`, true, res.status);
}
