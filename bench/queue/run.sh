#!/usr/bin/env bash
# Builds the queue benchmark in release mode, starts a private PostgreSQL in bench/.data/pg,
# runs pgbench's raw baseline and discern's queue side by side, and updates bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product QueueBench 2>&1 | tail -n 1
mkdir -p bench/.data
url=$(bash scripts/postgres.sh start bench/.data/pg)
trap 'bash scripts/postgres.sh stop bench/.data/pg' EXIT
python3 bench/queue/run.py "$url" "$(swift build -c release --show-bin-path)/QueueBench"
