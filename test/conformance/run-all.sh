#!/usr/bin/env bash
# Conformance tier (`npm run test:conformance`): the project's own programs in
# test/conformance/programs through the real `turn` command (test/conformance/run.sh).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
echo "conformance: the project's programs (test/conformance/programs)"
exec bash "$root/test/conformance/run.sh"
