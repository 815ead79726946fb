#!/usr/bin/env bash
# Seeds 20,000,000 jobs and results in a private PostgreSQL (bench/.data/results-pg, kept for
# later runs: about 20 GB), times every dashboard query, status, report and the console on
# them, and updates bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product discern 2>&1 | tail -n 1
swift build -c release --product ScaleBench 2>&1 | tail -n 1
mkdir -p bench/.data
url=$(bash scripts/postgres.sh start bench/.data/results-pg)
trap 'bash scripts/postgres.sh stop bench/.data/results-pg' EXIT
bin=$(swift build -c release --show-bin-path)
python3 bench/results/run.py "$bin/discern" "$bin/ScaleBench" "$url" "${RESULTS_BENCH_JOBS:-20000000}"
