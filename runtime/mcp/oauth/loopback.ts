// The redirect's end (RFC 8252 §7.3): a one-shot HTTP listener on 127.0.0.1 that waits for the
// browser to come back with `code` and `state`. Only a request on its path whose `state` is the one
// this flow sent is taken: any other is answered 400 and the wait goes on (a page that guesses
// the port cannot end, or complete, someone else's sign-in). It stops at the first answer, at its
// time limit, or when its signal aborts.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpError } from '../server.js';

export const CALLBACK_PATH = '/callback';
/** The most of an authorization server's error text quoted. */
const QUOTED = 200;

export interface Loopback {
  /** http://127.0.0.1:PORT/callback */
  readonly redirectUrl: string;
  /** The authorization code of the redirect that carries `state` (waited for from this call on). */
  code(state: string, timeoutMs: number, signal?: AbortSignal): Promise<string>;
  close(): void;
}

const page = (title: string) => `<!doctype html><meta charset="utf-8"><title>Turn</title><p>${title}</p>`;

/** Listens on 127.0.0.1 (on `port` when it is free, else any). */
export async function openLoopback(port = 0): Promise<Loopback> {
  let waiting: { state: string; resolve(code: string): void; reject(e: Error): void } | undefined;
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
    if (code) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Signed in. You can close this tab and return to Turn.'));
      w.resolve(code);
    } else {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('The sign-in did not complete.'));
      const said = `${error ?? 'no code'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, QUOTED);
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
    code(state, timeoutMs, signal) {
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
