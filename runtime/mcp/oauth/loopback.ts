// The redirect's end (RFC 8252 §7.3): a one-shot HTTP listener on 127.0.0.1 that waits for the
// browser to come back with `code` and `state`. Only a request on its path whose `state` is the one
// this flow sent is taken: any other is answered 400 and the wait goes on (a page that guesses
// the port cannot end, or complete, someone else's sign-in). It stops at the first answer, at its
// time limit, or when its signal aborts. The answer's `iss` (RFC 9207, SEP-2468) is compared with
// the issuer whose metadata the sign-in used, as a string, before the code is given to anyone: a
// code from another authorization server (a mix-up attack) never reaches a token endpoint.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpError } from '../server.js';

export const CALLBACK_PATH = '/callback';
/** The most of an authorization server's error text quoted. */
const QUOTED = 200;

/**
 * Who must have answered (RFC 9207): the `issuer` of the authorization server metadata, and whether
 * that metadata says the server names itself in every answer
 * (`authorization_response_iss_parameter_supported`), which makes `iss` required.
 */
export interface ExpectedIssuer {
  issuer: string;
  required: boolean;
}

export interface Loopback {
  /** http://127.0.0.1:PORT/callback */
  readonly redirectUrl: string;
  /** The authorization code of the redirect that carries `state` (waited for from this call on). */
  code(state: string, timeoutMs: number, signal?: AbortSignal, expected?: ExpectedIssuer): Promise<string>;
  close(): void;
}

/** Outside text quoted in an error: cut, no control characters. */
const quoted = (s: string) => s.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, QUOTED);

/** Why an answer's `iss` is refused, or undefined when it is the expected one (a simple string comparison, no normalization). */
export function issuerRefusal(iss: string | null, expected: ExpectedIssuer | undefined): string | undefined {
  if (!expected) return undefined;
  if (iss === null) {
    return expected.required ? `the authorization server ${quoted(expected.issuer)} says it names itself in its answers (authorization_response_iss_parameter_supported), but this answer has no iss: refused (RFC 9207)` : undefined;
  }
  if (iss !== expected.issuer) return `the authorization answer names the issuer ${quoted(iss)}, not ${quoted(expected.issuer)} whose metadata this sign-in used: refused (RFC 9207: a code from another authorization server is never exchanged)`;
  return undefined;
}

const page = (title: string) => `<!doctype html><meta charset="utf-8"><title>Turn</title><p>${title}</p>`;

/** Listens on 127.0.0.1 (on `port` when it is free, else any). */
export async function openLoopback(port = 0): Promise<Loopback> {
  let waiting: { state: string; expected?: ExpectedIssuer; resolve(code: string): void; reject(e: Error): void } | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404).end();
      return;
    }
    const state = url.searchParams.get('state');
    if (!waiting || state !== waiting.state) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('This sign-in link is not the one Turn is waiting for.'));
      return;
    }
    const w = waiting;
    waiting = undefined;
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    // an error answer names its issuer too (RFC 9207 §2): checked first
    const wrongIssuer = issuerRefusal(url.searchParams.get('iss'), w.expected);
    if (wrongIssuer) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('The sign-in was refused: the answer did not come from the authorization server Turn asked. Return to Turn.'));
      w.reject(new McpError(wrongIssuer));
    } else if (code) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Signed in. You can close this tab and return to Turn.'));
      w.resolve(code);
    } else {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('The sign-in did not complete.'));
      const said = quoted(`${error ?? 'no code'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`);
      w.reject(new McpError(`the authorization server refused the sign-in (${said})`));
    }
  });
  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen(port);
  } catch (e) {
    if (port === 0 || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    await listen(0);
  }
  const close = () => {
    waiting?.reject(new McpError('the sign-in was not completed'));
    server.closeAllConnections();
    server.close();
  };
  return {
    redirectUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`,
    code(state, timeoutMs, signal, expected) {
      return new Promise<string>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
        };
        const aborted = () => {
          waiting = undefined;
          done();
          reject(new McpError('the sign-in was cancelled'));
        };
        const timer = setTimeout(() => {
          waiting = undefined;
          done();
          reject(new McpError(`nobody signed in within ${Math.round(timeoutMs / 1000)} s (the authorization URL was opened and printed)`));
        }, timeoutMs);
        if (signal?.aborted) return aborted();
        signal?.addEventListener('abort', aborted, { once: true });
        waiting = {
          state,
          ...(expected ? { expected } : {}),
          resolve: (c) => {
            done();
            resolve(c);
          },
          reject: (e) => {
            done();
            reject(e);
          },
        };
      });
    },
    close,
  };
}
