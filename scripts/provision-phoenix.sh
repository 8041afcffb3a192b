#!/usr/bin/env bash
# Provisions Arize Phoenix (PyPI `arize-phoenix`), the OpenTelemetry backend of the observability
# tier (test/telemetry/phoenix.tier.ts, docs/observability.md), idempotently, into .e2e/phoenix/ (a
# Python virtual environment, ignored like the rest of .e2e/): `.e2e/phoenix/bin/phoenix serve`.
# Needs Python >= 3.10 with the venv module (Debian: python3-venv, installed here when missing).
# Only PyPI is used (and Debian apt for python3-venv). A fresh install fills about 860 MB; measured
# here (2 shared cores, `nice`): 15 min 16 s wall, of which 66 s CPU (the rest is the download):
# cache .e2e/phoenix/ between CI runs. Present, it takes 0.4 s.
# Environment: TURN_PHOENIX_VERSION (default 20.26.1), TURN_PHOENIX_DIR (default .e2e/phoenix),
# PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
VERSION="${TURN_PHOENIX_VERSION:-20.26.1}"
DIR="${TURN_PHOENIX_DIR:-$ROOT/.e2e/phoenix}"
PYTHON="${PYTHON:-python3}"
start=$(date +%s)

log() { printf '[provision-phoenix] %s\n' "$*"; }

installed=""
[ -x "$DIR/bin/python" ] && installed=$("$DIR/bin/python" -c 'import importlib.metadata as m; print(m.version("arize-phoenix"))' 2>/dev/null || true)
if [ "$installed" = "$VERSION" ] && [ -x "$DIR/bin/phoenix" ]; then
  log "arize-phoenix $VERSION present in $DIR"
  exit 0
fi

if ! command -v "$PYTHON" >/dev/null; then
  log "no $PYTHON on PATH: Phoenix needs Python >= 3.10"
  exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  log "$("$PYTHON" --version 2>&1) is too old: Phoenix needs Python >= 3.10"
  exit 1
fi
if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  log "apt-get install python3-venv"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi

log "installing arize-phoenix $VERSION into $DIR (from PyPI)"
rm -rf "$DIR"
"$PYTHON" -m venv "$DIR"
"$DIR/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "arize-phoenix==$VERSION"
"$DIR/bin/phoenix" --help >/dev/null
log "done in $(( $(date +%s) - start )) s"
