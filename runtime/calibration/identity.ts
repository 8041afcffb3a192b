// Which model a calibration map belongs to (docs/inference.md, *Calibration*). A map is fitted on
// one model's confidences and means nothing for another's, so it is keyed by the model's identity:
// the provider and the model's name, and for a model that is a file (a GGUF model run in process, a
// Wasm driver, a script fixture) the SHA-256 of the file's bytes — a file renamed is the same
// model, a file replaced under the same name is not. A hosted model's identity is its provider and
// name only: Turn cannot see which weights a server runs (a model updated behind the same name keeps
// its map; recalibrate after a provider's model update). The query options (base_url, timeouts) are
// not part of it: they do not change the weights.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeCrypto } from '../hash.js';

export interface ModelIdentity {
  provider: string;
  model: string;
  /** the model file's SHA-256, for providers whose model is a file */
  sha256?: string;
}

/** Providers whose spec names a file: the file's bytes are the model. */
const FILE_PROVIDERS = new Set(['llama', 'script', 'wasm']);

/** The identity's text, as a calibration file's reader compares them: `llama:gemma.gguf#sha256:ab12…`. */
export function identityKey(id: ModelIdentity): string {
  return `${id.provider}:${id.model}${id.sha256 ? `#sha256:${id.sha256}` : ''}`;
}

/** What a person reads: the key with the hash shortened. */
export function identityText(id: ModelIdentity): string {
  return `${id.provider}:${id.model}${id.sha256 ? ` (sha256 ${id.sha256.slice(0, 12)}…)` : ''}`;
}

/** The hashes already taken in this process, by path, size and modification time (a 250 MB model takes about a second). */
const hashes = new Map<string, string>();

async function fileSha256(file: string): Promise<string> {
  const st = await fs.promises.stat(file);
  const key = `${file}\0${st.size}\0${st.mtimeMs}`;
  const known = hashes.get(key);
  if (known) return known;
  const h = nodeCrypto().createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  const hex = h.digest('hex');
  hashes.set(key, hex);
  return hex;
}

/**
 * The identity of the model a (resolved) spec names. A file the spec names that cannot be read
 * throws (the run would fail to use it anyway).
 */
export async function modelIdentity(spec: string, cwd: string): Promise<ModelIdentity> {
  if (spec === 'mock') return { provider: 'mock', model: 'mock' };
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  const q = rest.indexOf('?');
  const name = q < 0 ? rest : rest.slice(0, q);
  if (FILE_PROVIDERS.has(provider) && name !== '') {
    const file = path.resolve(cwd, name);
    return { provider, model: path.basename(file), sha256: await fileSha256(file) };
  }
  return { provider, model: name };
}

export function sameModel(a: ModelIdentity, b: ModelIdentity): boolean {
  return identityKey(a) === identityKey(b);
}
