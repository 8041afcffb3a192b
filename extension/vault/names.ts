// Rules for credential names and the message shown when the OS keyring is missing. No `vscode`
// import, so test/extension/ covers them.

/** Undefined when `name` is a valid credential name, else why not. */
export function checkCredentialName(name: string): string | undefined {
  if (name.length === 0) return 'A name is required';
  if (name.length > 128) return 'At most 128 characters';
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(name)) return 'Letters, digits, ".", "_", ":" and "-" only, starting with a letter or digit';
  return undefined;
}

/**
 * SecretStorage rejects when no OS keyring (libsecret / gnome-keyring / kwallet, Keychain, Credential
 * Manager) is available. Turn that into an error that says what to do.
 */
export function keyringErrorMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  if (/keyring|keychain|secret ?service|libsecret|dbus|org\.freedesktop|encryption is not available|safeStorage/i.test(raw)) {
    return `Turn vault: no OS keyring is available to store credentials (${raw}). Install and unlock one (for example gnome-keyring with libsecret on Linux), or pass secrets to the CLI with TURN_SECRET_<NAME> or --secrets FILE.`;
  }
  return `Turn vault: ${raw}`;
}
