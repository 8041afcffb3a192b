#!/usr/bin/env bash
# The project's conformance runner: runs every Turn program in test/conformance/programs (or in the
# folders given) through the real `turn` command and compares what it does with what it should do.
#
#   bash test/conformance/run.sh [DIR...]
#
# For each NAME.tn:
#   - it runs as `turn run NAME.tn ARGS` from the project root, with standard input empty; ARGS come
#     from a `// args: ...` line of the program (so a fixture path in ARGS is relative to the root);
#   - its standard output must equal NAME.out byte for byte (every program needs one; an empty
#     NAME.out means "prints nothing");
#   - its exit code must equal the `// exit: N` line (0 when there is none);
#   - with exit 2 (does not compile) standard error must locate the problem as NAME.tn:LINE:COL:,
#     and with exit 1 (failed at run time) it must name NAME.tn:LINE:COL: too.
# TURN overrides the command (default: node bin/turn.js, the `turn` of this clone; e.g. TURN=turn
# for an installed one), TURN_PROGRAM_TIMEOUT the seconds a program may take (default 60).
# Prints one FAIL line per failing program, then `N passed, N failed` last; exits 1 if any failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)

# Folders are taken relative to where the runner was started; programs then run from the root.
dirs=()
for d in "$@"; do
  if [ -d "$d" ]; then dirs+=("$(cd "$d" && pwd)"); else dirs+=("$d"); fi
done
[ ${#dirs[@]} -eq 0 ] && dirs=("$root/test/conformance/programs")
cd "$root" || exit 1

if [ -n "${TURN:-}" ]; then
  read -r -a turn_cmd <<<"$TURN"
else
  if [ ! -f "$root/dist/cli.js" ]; then
    echo "conformance: the turn command is not built; run \`npm run build\` first" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
  turn_cmd=(node "$root/bin/turn.js")
fi

# `timeout` is GNU coreutils; without it programs run unbounded.
limit=()
command -v timeout >/dev/null 2>&1 && limit=(timeout "${TURN_PROGRAM_TIMEOUT:-60}")

pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

for dir in "${dirs[@]}"; do
  if [ ! -d "$dir" ]; then
    echo "FAIL $dir: not a folder"
    fail=$((fail + 1))
    continue
  fi
  for prog in "$dir"/*.tn; do
    [ -e "$prog" ] || continue
    name=$(basename "$prog")
    expected="${prog%.tn}.out"
    want_exit=$(sed -n 's#^// exit: *\([0-9][0-9]*\).*#\1#p' "$prog" | head -n 1)
    want_exit=${want_exit:-0}
    args=$(sed -n 's#^// args: *##p' "$prog" | head -n 1)

    # shellcheck disable=SC2086 # the arguments split on spaces, as written
    ${limit[@]+"${limit[@]}"} "${turn_cmd[@]}" run "$prog" $args </dev/null >"$out" 2>"$err"
    got_exit=$?

    problems=""
    if [ "$got_exit" = 124 ] && [ ${#limit[@]} -gt 0 ]; then
      problems="timed out after ${TURN_PROGRAM_TIMEOUT:-60} s"
    elif [ "$got_exit" != "$want_exit" ]; then
      problems="exit code $got_exit, want $want_exit"
    fi
    if [ ! -f "$expected" ]; then
      problems="${problems:+$problems; }no $(basename "$expected") with the expected output"
    elif ! cmp -s "$expected" "$out"; then
      problems="${problems:+$problems; }standard output differs (< expected, > actual): $(diff "$expected" "$out" | head -n 8 | tr '\n' ' ')"
    fi
    if [ "$want_exit" = 2 ] || [ "$want_exit" = 1 ]; then
      if ! grep -q "$name:[0-9][0-9]*:[0-9][0-9]*: " "$err"; then
        problems="${problems:+$problems; }no $name:LINE:COL: message on standard error"
      fi
    fi

    if [ -z "$problems" ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL $name: $problems"
      head -n 4 "$err" | sed 's/^/    stderr: /'
    fi
  done
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
