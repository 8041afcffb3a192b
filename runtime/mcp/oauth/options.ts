// What the run API lets a caller set for OAuth (AuthorityOptions.oauth): how the authorization URL
// reaches a person, Turn's client ID metadata document, and the bounds of the flow.

/** Opens the authorization URL for the person who signs in (the CLI: the system browser; the editor: VS Code's `env.openExternal`). */
export type OpenUrl = (url: string) => void | Promise<void>;

export interface OAuthOptions {
  /** default: the system browser, or the command in `TURN_BROWSER` (browser.ts); the URL is printed too */
  openUrl?: OpenUrl;
  /**
   * Turn's client ID metadata document (an https URL the operator hosts, SEP-991): used as the
   * client id where an authorization server says it supports them, instead of registering.
   */
  clientMetadataUrl?: string;
  /** the most the person may take to sign in, in ms (default 5 minutes) */
  authorizeTimeoutMs?: number;
  /** the most one metadata, registration or token request may take, in ms (default 10 s) */
  requestTimeoutMs?: number;
  /** the host's: runs the wait for a person's sign-in with the tool calls' time limits stopped (runtime/run/host.ts) */
  whileAPersonActs?: <T>(f: () => Promise<T>) => Promise<T>;
}

export const DEFAULT_AUTHORIZE_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** The most bytes a metadata document, registration or token response may have. */
export const MAX_OAUTH_RESPONSE_BYTES = 64 * 1024;
/** Authorization attempts for one request: the first sign-in and at most two step-ups (insufficient_scope). */
export const MAX_AUTHORIZATIONS = 3;
