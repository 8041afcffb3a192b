// Loads a CommonJS bundle (dist/cli.js) through a V8 code cache, so that a start-up deserializes
// the functions an earlier run compiled instead of compiling the bundle again (issue 29,
// docs/performance.md, *Cold start*). Node 20 has no module compile cache (22 has
// `module.enableCompileCache`), so this is `vm.Script` with `cachedData`.
//
// One cache per command kind (`run`, `lsp`, `check`, ... ): each holds what that command compiled.
// Where a cache is looked for, first to last:
//   1. dist/code-cache/KIND.bin, written by `npm run build` (scripts/build.mjs runs each command
//      once): a fresh clone and the packed tarball start warm on the Node that built them;
//   2. the user's cache folder (TURN_CACHE_DIR, else $XDG_CACHE_HOME/turn, else ~/.cache/turn;
//      %LOCALAPPDATA%\turn on Windows), code-cache/KIND-TAGHASH.bin, written at the exit of the
//      first run that found no usable cache (another Node, another build).
// A cache file starts with a tag line: format, Node version, architecture, Node flags, the build id
// of dist/ (dist/build-id: a hash of the bundle that scripts/build.mjs writes) and the bundle's
// size. A tag that does not match this bundle and this Node is not used, so a rebuilt dist/ never
// runs stale code; V8 checks again (its version, flags and the source) and may reject the bytes
// (`cachedDataRejected`), which only means a compile as without a cache and a new cache written.
// Writing is best-effort (a read-only or full folder is ignored) and atomic (a temporary file
// renamed), so two `turn` started at once cannot leave a torn cache.
//
// Code compiled by `vm.Script` has no loader for `import()` (and in Node 20 a script restored from a
// code cache loses even one it is given), so the bundle's code never uses `import()` itself: the one
// ES module it loads, node-llama-cpp, is imported through a script compiled at that moment
// (runtime/providers/llama.ts, importModule).
//
// TURN_CODE_CACHE=off loads the bundle with a plain require (the bench's comparison);
// TURN_CODE_CACHE_WRITE=DIR writes the cache of this run into DIR whatever it found (the build);
// TURN_CODE_CACHE_DEBUG=1 says on stderr what was used and written.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const { isAscii } = require('node:buffer');

const FORMAT = 1;
const KINDS = new Set(['run', 'lsp', 'check', 'test', 'fmt', 'resume', 'eval']);

/** The cache kind of a command line's first word. */
function cacheKind(command) {
  return KINDS.has(command) ? command : 'other';
}

/** The tag a cache of `file` must carry to be used by this Node. */
function cacheTag(file, kind) {
  const size = fs.statSync(file).size;
  let build;
  try {
    build = fs.readFileSync(path.join(path.dirname(file), 'build-id'), 'utf8').trim();
  } catch {
    build = `mtime ${fs.statSync(file).mtimeMs}`;
  }
  return [`turn-code-cache ${FORMAT}`, process.version, process.arch, JSON.stringify(process.execArgv), build, size, kind].join(' | ');
}

/** FNV-1a, 32 bits, as hex: a short stable name for a tag (node:crypto costs more to load than it saves). */
function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

function userCacheDir() {
  if (process.env.TURN_CACHE_DIR) return path.join(process.env.TURN_CACHE_DIR, 'code-cache');
  const home = require('node:os').homedir();
  const base = process.platform === 'win32' ? process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local') : process.env.XDG_CACHE_HOME || path.join(home, '.cache');
  return path.join(base, 'turn', 'code-cache');
}

/** The cache bytes in `file` when its tag is `tag`, else undefined. */
function readCache(file, tag) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const nl = bytes.indexOf(10);
  if (nl < 0 || bytes.toString('utf8', 0, nl) !== tag) return undefined;
  return bytes.subarray(nl + 1);
}

function writeCache(file, tag, data) {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(tag + '\n'), data]));
    fs.renameSync(tmp, file);
    return true;
  } catch {
    return false;
  }
}

/** Removes the caches of `kind` other than `keep` in `dir` (those of earlier builds or Nodes). */
function pruneCaches(dir, kind, keep) {
  try {
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(`${kind}-`) && name !== path.basename(keep)) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // a cache folder we cannot list is left as it is
  }
}

/**
 * The text of `file`: an ASCII file (the build makes dist/cli.js one) as latin1, which is the same
 * text and decodes about three times faster than UTF-8; any other file as UTF-8.
 */
function readSource(file) {
  const bytes = fs.readFileSync(file);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/**
 * Loads the CommonJS module `file` (its `module.exports`), compiled from a code cache when one fits,
 * and schedules writing one at exit when none did. `command` picks the cache (see cacheKind).
 */
function loadCached(file, command) {
  if (process.env.TURN_CODE_CACHE === 'off') return require(file);
  const debug = process.env.TURN_CODE_CACHE_DEBUG ? (msg) => process.stderr.write(`turn: code cache: ${msg}\n`) : () => {};
  const kind = cacheKind(command);
  const tag = cacheTag(file, kind);
  // the user's folder is looked up only when the build's cache does not fit (node:os is not loaded otherwise)
  const candidates = [() => path.join(path.dirname(file), 'code-cache', `${kind}.bin`), () => path.join(userCacheDir(), `${kind}-${shortHash(tag)}.bin`)];
  let used;
  let cachedData;
  for (const candidate of candidates) {
    const where = candidate();
    cachedData = readCache(where, tag);
    if (cachedData) {
      used = where;
      break;
    }
  }
  const source = readSource(file);
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const rejected = cachedData !== undefined && script.cachedDataRejected === true;
  debug(used ? `${rejected ? 'rejected' : 'hit'} ${used}` : `miss (${kind})`);

  const dir = path.dirname(file);
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dir);
  Module._cache[file] = m;
  script.runInThisContext().call(m.exports, m.exports, Module.createRequire(file), m, file, dir);
  m.loaded = true;

  const forced = process.env.TURN_CODE_CACHE_WRITE;
  if (forced || !used || rejected) {
    const target = forced ? path.join(forced, `${kind}.bin`) : candidates[1]();
    process.once('exit', () => {
      // what this run compiled, the bundle's top level and every function it called
      if (writeCache(target, tag, script.createCachedData())) {
        debug(`wrote ${target}`);
        if (!forced) pruneCaches(path.dirname(target), kind, target);
      }
    });
  }
  return m.exports;
}

module.exports = { loadCached, cacheKind, cacheTag, userCacheDir };
