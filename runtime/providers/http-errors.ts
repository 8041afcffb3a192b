// How HTTP providers classify failures: what is retried (429, 408, 5xx, 529) and how long to wait,
// and what a body that is not the API's JSON is called. The transport adds what came over the wire
// (status, content type, bytes, milliseconds) to every message.
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

/** Whether a response is an HTML page (a login page, a proxy's error page, a web server's index): by its content type, or its first characters. */
function isHtml(res: HttpResult): boolean {
  const type = res.headers['content-type'] ?? '';
  return /text\/html|application\/xhtml/i.test(type) || /^\s*<(!doctype html|html|head|body)\b/i.test(res.body.slice(0, 200));
}

/** A ProviderError for a non-2xx response; `service` names the API in the message. */
export function httpError(service: string, url: string, res: HttpResult): ProviderError {
  let detail = '';
  if (isHtml(res)) detail = `an HTML page, not the API's JSON: is the base URL right?`;
  else {
    try {
      const j = JSON.parse(res.body) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
      if (typeof j.error === 'string') detail = j.error;
      else if (j.error && typeof j.error.message === 'string') detail = j.error.message;
      else if (typeof j.message === 'string') detail = j.message;
    } catch {
      detail = res.body.slice(0, 200).trim();
    }
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

/**
 * The JSON object of a successful response. Anything else is not sent again: the server answered,
 * so the same request gets the same page — an HTML page (a wrong base URL, a proxy's login page)
 * says so; other text is quoted.
 */
export function parseBody(service: string, url: string, res: HttpResult): Record<string, unknown> {
  if (isHtml(res)) {
    throw new ProviderError(`${service} at ${url} answered with an HTML page, not JSON: is the base URL right? (it should be the API's root, e.g. …/v1)`, false, res.status);
  }
  let why = 'not JSON';
  try {
    const j = JSON.parse(res.body) as unknown;
    if (j && typeof j === 'object' && !Array.isArray(j)) return j as Record<string, unknown>;
    why = `JSON but not an object (${Array.isArray(j) ? 'a list' : j === null ? 'null' : typeof j})`;
  } catch {
    if (res.body.trim() === '') why = 'empty';
  }
  const head = res.body.slice(0, 120).trim();
  throw new ProviderError(`${service} at ${url} answered with a body that is ${why}${head ? `: ${JSON.stringify(head)}` : ''}`, false, res.status);
}
