#!/usr/bin/env bash
# Provisions the public GraphQL schemas test/absorb/graphql-shopify.test.ts absorbs, idempotently,
# into .e2e/schemas/ (ignored, like the rest of .e2e/): Shopify's Storefront API and Customer
# Account API, as the introspection JSON that @shopify/hydrogen-react ships
# (storefront.schema.json, customer-account.schema.json). The package is not a devDependency (its
# peers react, react-dom and vite would be installed into the project): it is fetched with
# `npm pack` (the npm registry only, pinned by version) and only those two files are extracted.
# Environment: TURN_HYDROGEN_REACT_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
VERSION="${TURN_HYDROGEN_REACT_VERSION:-2026.4.4}"
DIR="$ROOT/.e2e/schemas"
FILES=(storefront.schema.json customer-account.schema.json)

log() { printf '[provision-schemas] %s\n' "$*"; }

present=yes
for f in "${FILES[@]}"; do [ -s "$DIR/$f" ] || present=no; done
if [ "$present" = yes ] && [ "$(cat "$DIR/VERSION" 2>/dev/null)" = "$VERSION" ]; then
  log "@shopify/hydrogen-react $VERSION schemas present"
  exit 0
fi
log "fetching @shopify/hydrogen-react@$VERSION (npm pack) for ${FILES[*]}"
mkdir -p "$DIR"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tgz="$(cd "$tmp" && npm pack --silent "@shopify/hydrogen-react@$VERSION" | tail -n 1)"
tar -xzf "$tmp/$tgz" -C "$tmp" "${FILES[@]/#/package/}"
for f in "${FILES[@]}"; do mv -f "$tmp/package/$f" "$DIR/$f"; done
echo "$VERSION" > "$DIR/VERSION"
log "$(cd "$DIR" && wc -c "${FILES[@]}" | tail -n 1 | awk '{print $1}') bytes in .e2e/schemas"
