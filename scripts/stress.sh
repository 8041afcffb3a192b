#!/usr/bin/env bash
# Runs a test file N times in a row while CPU-heavy jobs keep every core busy, and counts the
# failures: how a race shows itself before CI meets it. Usage: scripts/stress.sh N FILE [LOAD_JOBS]
# (LOAD_JOBS default: the number of cores). Prints 'N passed, N failed' last.
set -u
runs=${1:?usage: scripts/stress.sh N FILE [LOAD_JOBS]}
file=${2:?usage: scripts/stress.sh N FILE [LOAD_JOBS]}
jobs=${3:-$(nproc)}
cd "$(dirname "$0")/.." || exit 1
pids=()
for _ in $(seq "$jobs"); do
  node -e 'const end = Date.now() + 3600e3; let x = 0; while (Date.now() < end) x = (x * 31 + 7) % 1000003;' &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
pass=0; fail=0
for i in $(seq "$runs"); do
  if node --import tsx --test --test-reporter=dot "$file" >"${TMPDIR:-/tmp}/stress-$$-$i.log" 2>&1; then pass=$((pass+1)); rm -f "${TMPDIR:-/tmp}/stress-$$-$i.log"
  else fail=$((fail+1)); echo "run $i failed: ${TMPDIR:-/tmp}/stress-$$-$i.log"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
