#!/usr/bin/env bash
# Builds the queue benchmark in release mode, starts a private PostgreSQL in bench/.data/pg,
# runs pgbench's raw baseline, the same SQL by hand on discern's tables and discern's queue side by
# side, and updates bench/RESULTS.md.
#   bash bench/queue/run.sh                      the queue section (about 6 minutes)
#   bash bench/queue/run.sh --costmap [ROUNDS]   what each index, roll-up trigger and the fillfactor cost the
#                                                claim + complete (costmap.py, about 15 minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product QueueBench 2>&1 | tail -n 1
mkdir -p bench/.data
url=$(bash scripts/postgres.sh start bench/.data/pg)
trap 'bash scripts/postgres.sh stop bench/.data/pg' EXIT
bench_bin="$(swift build -c release --show-bin-path)/QueueBench"
if [ "${1:-}" = --costmap ]; then
    python3 bench/queue/costmap.py "$url" "$bench_bin" "${@:2}"
else
    python3 bench/queue/run.py "$url" "$bench_bin"
fi
