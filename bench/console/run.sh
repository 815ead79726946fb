#!/usr/bin/env bash
# Seeds 1,000,000 jobs and results (with entities, dead and waiting jobs, corrections) in a
# private PostgreSQL, starts the release console on it, times every page and API call, and
# writes the figures to bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/console/run.py "$(swift build -c release --show-bin-path)/discern" "${CONSOLE_BENCH_JOBS:-1000000}"
