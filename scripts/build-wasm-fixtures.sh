#!/usr/bin/env bash
# Rebuilds the Wasm provider-driver fixtures (test/providers/fixtures/wasm/*.wasm) from their
# WebAssembly-text sources (*.wat) with wabt's wat2wasm (Debian: `apt-get install wabt`).
# The built .wasm files are committed, so the tests need no tool; test/providers/wasm.test.ts
# rebuilds them into a temporary folder when wat2wasm is present and fails if the committed
# bytes differ from what this script would write.
#   scripts/build-wasm-fixtures.sh            rebuild in place
#   scripts/build-wasm-fixtures.sh OUT_DIR    write the .wasm files into OUT_DIR instead
set -euo pipefail
cd "$(dirname "$0")/.."
src=test/providers/fixtures/wasm
out=${1:-$src}
if ! command -v wat2wasm >/dev/null 2>&1; then
  echo "build-wasm-fixtures: wat2wasm not found (Debian: apt-get install wabt)" >&2
  exit 1
fi
mkdir -p "$out"
for wat in "$src"/*.wat; do
  name=$(basename "$wat" .wat)
  wat2wasm "$wat" -o "$out/$name.wasm"
done
echo "built $(ls "$src"/*.wat | wc -l) driver fixtures into $out"
