#!/usr/bin/env bash
# bench/harness: the public PostgreSQL job-queue harness's chaos and pressure scenarios, with
# discern's real worker runtime (bench/harness/run.py says how). Builds bench/scale's worker in
# release mode, starts a private PostgreSQL (max_connections 320) in bench/.data/harness-pg,
# runs every scenario (or those named) and updates bench/RESULTS.md and bench/harness/plots/.
#   bash bench/harness/run.sh [SCENARIO ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
python3 -c 'import psycopg, matplotlib' 2>/dev/null || python3 -m pip install --quiet 'psycopg[binary]' matplotlib
swift build -c release --product ScaleBench 2>&1 | tail -n 1
mkdir -p bench/.data
folder=bench/.data/harness-pg
export PG_MAX_CONNECTIONS=320  # also for the restarts of postgres_restart
url=$(bash scripts/postgres.sh start "$folder")
trap 'bash scripts/postgres.sh stop "$folder"' EXIT
python3 bench/harness/run.py "$(swift build -c release --show-bin-path)/ScaleBench" "$folder" "$url" "$@"
