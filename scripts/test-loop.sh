#!/usr/bin/env bash
# Runs the README's test command again and again, to show the suite holds run after run
# (issue 26: it once passed 1 run in 7). Stops at the first failing run unless --keep-going.
#   scripts/test-loop.sh [RUNS] [--keep-going] [--hog] [-- swift test arguments]
# --hog keeps one core busy beside the tests (a CPU hog), as a loaded CI machine would.
# Each run's output is kept in $DISCERN_LOOP_DIR (default /tmp/discern-test-loop); the last
# line printed is the summary: runs, passes, and the failing tests of each failed run.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=10 keep_going=0 hog=0
while (($#)); do
    case "$1" in
    --keep-going) keep_going=1 ;;
    --hog) hog=1 ;;
    --) shift; break ;;
    *) runs=$1 ;;
    esac
    shift
done

logs=${DISCERN_LOOP_DIR:-/tmp/discern-test-loop}
mkdir -p "$logs"
hog_pid=""
if ((hog)); then
    (while :; do :; done) &
    hog_pid=$!
fi
trap '[ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null' EXIT

passed=0 failed=0 summary=""
for ((run = 1; run <= runs; run++)); do
    log="$logs/run-$run.log"
    started=$(date +%s)
    if bash scripts/test.sh "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        outcome="passed"
    else
        failed=$((failed + 1))
        names=$(grep -E '^✘ Test "' "$log" | sed -E 's/^✘ Test "([^"]*)".*/\1/' | sort -u | paste -sd ';' -)
        outcome="FAILED: ${names:-see $log}"
        summary+=" run $run: ${names:-see $log}."
    fi
    echo "run $run of $runs: $outcome ($(( $(date +%s) - started )) s; $(grep -E '^. Test run with' "$log" | tail -n 1))"
    if ((failed && !keep_going)); then break; fi
done
echo "summary: $((passed + failed)) runs, $passed passed, $failed failed.$summary"
((failed == 0))
