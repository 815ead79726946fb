#!/usr/bin/env bash
# bench/soak: a night as a bench: a worker at its defaults for hours at about 80 % of
# its measured capacity, photos arriving, a service outage of several minutes, a transaction left
# open, and the recoveries (bench/soak/soak.py says how). Builds discern in release mode, makes a
# photo set with `discern samples`, starts a private PostgreSQL in bench/.data/soak-pg and writes
# the "## Soak" section of bench/RESULTS.md. About 2 h 55 min at the default phase lengths;
#   SOAK_CLEAN_MIN=2 SOAK_REFUSED_MIN=1 SOAK_FAILING_MIN=1 SOAK_RECOVERY_MIN=2 SOAK_IDLE_TX_MIN=1 \
#   SOAK_RELEASED_MIN=1 SOAK_RESULTS=/tmp/soak.md bash bench/soak/run.sh       # a quick check
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
python3 -c 'import psycopg' 2>/dev/null || python3 -m pip install --quiet 'psycopg[binary]'
swift build -c release --product discern 2>&1 | tail -n 1
discern="$(swift build -c release --show-bin-path)/discern"
photos=bench/.data/soak-photos
if [ ! -d "$photos" ]; then
    # A night's mix: 3000x2000 JPEGs that go as they are, 6000x4000 ones to shrink, PNGs to re-encode.
    "$discern" samples "$photos" --count 24 --size 3000x2000 --grain 6 --prefix pass >/dev/null
    "$discern" samples "$photos" --count 8 --size 6000x4000 --grain 6 --prefix big >/dev/null
    "$discern" samples "$photos" --count 8 --size 2000x1500 --format png --prefix png >/dev/null
fi
folder=bench/.data/soak-pg
# What PostgreSQL spends its time on, per phase (bench/soak/statements.py).
export PG_EXTRA_OPTIONS="${PG_EXTRA_OPTIONS:-} -c shared_preload_libraries=pg_stat_statements"
bash scripts/postgres.sh stop "$folder"  # a cluster left running would keep the options it was started with
url=$(bash scripts/postgres.sh start "$folder")
trap 'bash scripts/postgres.sh stop "$folder"' EXIT
python3 bench/soak/soak.py "$discern" "$url" "$(cd "$photos" && pwd)"
