#!/usr/bin/env bash
# Builds bench/scale's worker in release mode, starts a private PostgreSQL (400 connections) in
# bench/.data/scale-pg, drains 100,000 no-op jobs with 4 and with 100 worker processes, and
# updates bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product ScaleBench 2>&1 | tail -n 1
mkdir -p bench/.data
url=$(PG_MAX_CONNECTIONS=400 bash scripts/postgres.sh start bench/.data/scale-pg)
trap 'bash scripts/postgres.sh stop bench/.data/scale-pg' EXIT
python3 bench/scale/run.py "$(swift build -c release --show-bin-path)/ScaleBench" "$url" "${SCALE_BENCH_JOBS:-100000}"
