#!/usr/bin/env bash
# The flake finder: runs the README's test command again and again and says which tests failed
# how often (a test red in one run of two shows only under the whole suite's load). Run it
# before resolving anything that touches processes, timing or shutdown.
#   scripts/test-loop.sh [RUNS] [--keep-going] [--hog] [--hogs N] [-- swift test arguments]
# --hog keeps every core busy beside the tests (one busy process per core, as a loaded CI
# machine is); --hogs N starts N of them. Stops at the first failing run unless --keep-going.
# Each run's output is kept in $DISCERN_LOOP_DIR (default /tmp/discern-test-loop); the end is a
# table of the tests that failed, with how many runs each failed in, and the summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=10 keep_going=0 hogs=0
while (($#)); do
    case "$1" in
    --keep-going) keep_going=1 ;;
    --hog) hogs=$(nproc) ;;
    --hogs) shift; hogs=$1 ;;
    --) shift; break ;;
    *) runs=$1 ;;
    esac
    shift
done

logs=${DISCERN_LOOP_DIR:-/tmp/discern-test-loop}
mkdir -p "$logs"
hog_pids=()
for ((i = 0; i < hogs; i++)); do
    (while :; do :; done) &
    hog_pids+=($!)
done
trap '((${#hog_pids[@]})) && kill "${hog_pids[@]}" 2>/dev/null' EXIT

passed=0 failed=0 summary="" failures="$logs/failures.txt"
: > "$failures"
for ((run = 1; run <= runs; run++)); do
    log="$logs/run-$run.log"
    started=$(date +%s)
    if bash scripts/test.sh "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        outcome="passed"
    else
        failed=$((failed + 1))
        names=$(grep -E '^✘ Test "' "$log" | sed -E 's/^✘ Test "([^"]*)".*/\1/' | sort -u)
        [ -n "$names" ] && printf '%s\n' "$names" >> "$failures"
        names=$(printf '%s' "$names" | paste -sd ';' -)
        outcome="FAILED: ${names:-see $log}"
        summary+=" run $run: ${names:-see $log}."
    fi
    echo "run $run of $runs: $outcome ($(( $(date +%s) - started )) s; $(grep -E '^. Test run with' "$log" | tail -n 1)) [busy processes beside it: $hogs]"
    if ((failed && !keep_going)); then break; fi
done
if [ -s "$failures" ]; then
    echo "tests that failed, with the number of runs each failed in:"
    sort "$failures" | uniq -c | sort -rn
fi
echo "summary: $((passed + failed)) runs, $passed passed, $failed failed, $hogs busy processes beside them.$summary"
((failed == 0))
