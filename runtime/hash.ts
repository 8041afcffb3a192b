// SHA-256 and random ids for the runtime, with node:crypto required on first use. node:crypto is not
// in Node's start-up snapshot: loading it at the start of every `turn run` cost about 25 ms of a
// start-up budget near Node's own (docs/performance.md, *Cold start*), and most runs hash nothing
// until they write to a store.
type Crypto = typeof import('node:crypto');
let crypto: Crypto | undefined;

function load(): Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (crypto ??= require('node:crypto') as Crypto);
}

/** The SHA-256 of the parts, one after the other (strings as UTF-8), as hex. */
export function sha256Hex(...parts: (string | Uint8Array)[]): string {
  const h = load().createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** The SHA-256 of `bytes`, as its 32 bytes. */
export function sha256(bytes: Uint8Array): Uint8Array {
  return load().createHash('sha256').update(bytes).digest();
}

/** `n` random bytes as hex. */
export function randomHex(n: number): string {
  return load().randomBytes(n).toString('hex');
}

/** node:crypto itself, required on first use (for HMACs, keys and comparisons the helpers above do not cover). */
export function nodeCrypto(): Crypto {
  return load();
}
