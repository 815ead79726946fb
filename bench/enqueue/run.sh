#!/usr/bin/env bash
# Builds discern in release mode, starts a private PostgreSQL in bench/.data/enqueue-pg, times
# `discern enqueue` of 1, 3 and 10 million files and a crashed run resumed (bench/enqueue/run.py;
# its trees, 10M empty files and 1M small ones, about 4 GB, stay in bench/.data for later runs),
# and updates bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product discern 2>&1 | tail -n 1
mkdir -p bench/.data
url=$(bash scripts/postgres.sh start bench/.data/enqueue-pg)
trap 'bash scripts/postgres.sh stop bench/.data/enqueue-pg' EXIT
python3 bench/enqueue/run.py "$(swift build -c release --show-bin-path)/discern" "$url" ${ENQUEUE_BENCH_MILLIONS:-1 3 10}
