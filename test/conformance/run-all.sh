#!/usr/bin/env bash
# Conformance tier: the shared programs of ../shared/conformance, run through the real `turn`
# command exactly as the shared runner defines it. (The project's own programs under
# test/conformance/programs run in the unit tier, test/cli/programs.test.ts.)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
shared="$root/../shared/conformance"
if [ ! -x "$shared/run" ]; then
  echo "conformance: the shared programs are not at $shared; check out the project beside shared/" >&2
  exit 1
fi
exec "$shared/run"
