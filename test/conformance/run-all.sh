#!/usr/bin/env bash
# Conformance tier (`npm run test:conformance`): the project's own programs in
# test/conformance/programs through the real `turn` command (test/conformance/run.sh), then — only
# when this clone sits beside a `shared/` checkout that has one — the shared runner
# ../shared/conformance/run as well. Fails if either fails.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

status=0
echo "conformance: the project's programs (test/conformance/programs)"
bash "$root/test/conformance/run.sh" || status=1

shared="$root/../shared/conformance/run"
if [ -f "$shared" ]; then
  echo "conformance: the shared programs ($shared)"
  bash "$shared" || status=1
fi
exit $status
