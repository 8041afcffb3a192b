// Turn v1's eight provider drivers, built from their crates (the `providers/` folder of a Turn v1
// checkout, named by TURN_V1_PROVIDERS) to wasm32-unknown-unknown with the cargo and rustc on the
// PATH (or CARGO / RUSTC). Turn v1 is a peer to test against, not part of this project: its
// sources are copied into a temporary folder and built there, cached by a hash of the sources and
// the compiler's version, so a second run does not build again. A first build takes about a
// minute and fetches serde and serde_json from crates.io.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The drivers: the name used here → the workspace member (crate folder). */
export const V1_DRIVERS = {
  openai: 'turn-provider-openai',
  anthropic: 'turn-provider-anthropic',
  grok: 'turn-provider-grok',
  ollama: 'turn-provider-ollama',
  'azure-openai': 'turn-provider-azure-openai',
  'azure-anthropic': 'turn-provider-azure-anthropic',
  'azure-openai-responses': 'turn-provider-azure-openai-responses',
  gemini: 'turn-provider-gemini',
} as const;
export type V1Driver = keyof typeof V1_DRIVERS;

const TARGET = 'wasm32-unknown-unknown';
const cargo = () => process.env.CARGO ?? 'cargo';
const rustc = () => process.env.RUSTC ?? 'rustc';

function tool(cmd: string, args: string[]): string | undefined {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Why the drivers cannot be built here, or false when they can. */
export function v1SkipReason(dir: string | undefined): string | false {
  if (!dir || !fs.existsSync(path.join(dir, 'Cargo.toml'))) {
    return 'Turn v1 driver sources absent: set TURN_V1_PROVIDERS to the providers/ folder of a Turn v1 checkout (this environment has no copy)';
  }
  const missing = Object.values(V1_DRIVERS).filter((c) => !fs.existsSync(path.join(dir, c, 'Cargo.toml')));
  if (missing.length > 0) return `TURN_V1_PROVIDERS (${dir}) lacks the driver crates ${missing.join(', ')}`;
  if (tool(cargo(), ['--version']) === undefined) return `no cargo (${cargo()}) to build the Turn v1 drivers with`;
  const sysroot = tool(rustc(), ['--print', 'sysroot']);
  if (sysroot === undefined || !fs.existsSync(path.join(sysroot, 'lib', 'rustlib', TARGET))) {
    return `no Rust toolchain with the ${TARGET} target (rustup target add ${TARGET}; Debian: rustc and libstd-rust-dev-wasm32)`;
  }
  return false;
}

/** The source files of the workspace (its `target/` left out), sorted. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'target' && e.name !== '.git') walk(r);
      } else if (e.isFile()) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

/** Builds (or finds built) the eight drivers; returns each one's .wasm path. Throws with cargo's output when the build fails. */
export function buildV1Drivers(dir: string): Record<V1Driver, string> {
  const files = sources(dir);
  const hash = createHash('sha256');
  hash.update(tool(rustc(), ['--version']) ?? '');
  for (const f of files) hash.update(`\0${f}\0`).update(fs.readFileSync(path.join(dir, f)));
  const cache = path.join(os.tmpdir(), 'turn-v1-drivers', hash.digest('hex').slice(0, 16));
  const wasmDir = path.join(cache, 'wasm');
  const wasm = Object.fromEntries(Object.entries(V1_DRIVERS).map(([name, crate]) => [name, path.join(wasmDir, `${crate.replace(/-/g, '_')}.wasm`)])) as Record<V1Driver, string>;
  if (Object.values(wasm).every((f) => fs.existsSync(f))) return wasm;

  const src = path.join(cache, 'src');
  fs.rmSync(src, { recursive: true, force: true });
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(src, f)), { recursive: true });
    fs.copyFileSync(path.join(dir, f), path.join(src, f));
  }
  const target = path.join(cache, 'target');
  const built = spawnSync(cargo(), ['build', '--release', '--target', TARGET, ...Object.values(V1_DRIVERS).flatMap((c) => ['-p', c])], {
    cwd: src,
    env: { ...process.env, CARGO_TARGET_DIR: target },
    encoding: 'utf8',
    timeout: 20 * 60_000,
  });
  if (built.status !== 0) {
    throw new Error(`building the Turn v1 drivers in ${src} failed (${built.error?.message ?? `exit ${built.status}`}):\n${(built.stderr ?? '').split('\n').slice(-30).join('\n')}`);
  }
  // the finished set appears at once: a build stopped half-way is never taken for a cached one
  const staged = `${wasmDir}.${process.pid}`;
  fs.rmSync(staged, { recursive: true, force: true });
  fs.mkdirSync(staged, { recursive: true });
  for (const f of Object.values(wasm)) fs.copyFileSync(path.join(target, TARGET, 'release', path.basename(f)), path.join(staged, path.basename(f)));
  fs.rmSync(wasmDir, { recursive: true, force: true });
  fs.renameSync(staged, wasmDir);
  return wasm;
}
