#!/usr/bin/env bash
# What each part of discern's claim + complete costs (bench/queue/costmap.py): builds the queue
# benchmark in release mode, starts a private PostgreSQL in bench/.data/pg-costmap, and writes
# the "## Queue cost map" section of bench/RESULTS.md. About 15 minutes on 2 cores.
#   bash bench/queue/costmap.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product QueueBench 2>&1 | tail -n 1
mkdir -p bench/.data
url=$(bash scripts/postgres.sh start bench/.data/pg-costmap)
trap 'bash scripts/postgres.sh stop bench/.data/pg-costmap' EXIT
python3 bench/queue/costmap.py "$url" "$(swift build -c release --show-bin-path)/QueueBench" "$@"
