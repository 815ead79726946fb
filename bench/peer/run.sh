#!/usr/bin/env bash
# A no-op drain beside a peer's on the same PostgreSQL: PgQueuer's own drain
# benchmark (its tools/benchmark.py, from a checkout of its repository, with the pgqueuer
# package from PyPI) against discern's real runtime with a no-op backend (bench/scale's
# ScaleBench), alternating, 3 rounds, the same number of jobs. Nothing of PgQueuer is kept here:
# give the path of a checkout (git clone https://github.com/janbjorge/pgqueuer).
#   bash bench/peer/run.sh PGQUEUER_CHECKOUT [JOBS]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
checkout=${1:?usage: bench/peer/run.sh PGQUEUER_CHECKOUT [JOBS]}
jobs=${2:-50000}
bash scripts/install-deps.sh --test
python3 -c 'import pgqueuer, asyncpg, typer, uvloop, tabulate, tqdm' 2>/dev/null \
    || python3 -m pip install --quiet pgqueuer asyncpg typer uvloop tabulate tqdm psycopg
swift build -c release --product ScaleBench 2>&1 | tail -n 1
mkdir -p bench/.data
pgdir=bench/.data/peer-pg
url=$(bash scripts/postgres.sh start "$pgdir")
trap 'bash scripts/postgres.sh stop "$pgdir"' EXIT
python3 bench/peer/run.py "$url" "$(swift build -c release --show-bin-path)/ScaleBench" "$checkout" "$jobs"
