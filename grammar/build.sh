#!/usr/bin/env bash
# Regenerates everything derived from grammar.js: the parser sources in src/, the corpus test run,
# and tree-sitter-turn.wasm (the one parser the runtime, the language server and the editor load).
# Needs the tree-sitter CLI (`cargo install tree-sitter-cli --locked`) and Debian's emscripten
# (`apt-get install emscripten`; leave EM_CACHE unset: Debian's cache is prebuilt and read-only).
set -euo pipefail
cd "$(dirname "$0")"
command -v tree-sitter >/dev/null || { echo "grammar: tree-sitter CLI not found (cargo install tree-sitter-cli --locked)" >&2; exit 1; }
command -v emcc >/dev/null || { echo "grammar: emcc not found (apt-get install emscripten)" >&2; exit 1; }

tree-sitter generate
tree-sitter test
emcc -Os -s WASM=1 -s SIDE_MODULE=2 -s 'EXPORTED_FUNCTIONS=["_tree_sitter_turn"]' -fno-exceptions \
  -I src src/parser.c -o tree-sitter-turn.wasm
tree-sitter --version | awk '{print $2}' > TREE_SITTER_CLI_VERSION
echo "grammar: regenerated src/, tests passed, wrote tree-sitter-turn.wasm (tree-sitter $(cat TREE_SITTER_CLI_VERSION))"
