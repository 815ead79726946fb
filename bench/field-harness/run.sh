#!/usr/bin/env bash
# bench/field-harness: discern, procrastinate and absurd through the field's public job-queue
# harness (hardbyte/postgresql-job-queue-benchmarking), its chaos, pressure, throughput and
# soak cells (bench/field-harness/run.py says which and how long). Nothing of the harness is
# committed here: it is read from a git snapshot (the library's `fetch` puts one in
# /work/.mirror), and absurd's schema likewise from earendil-works/absurd at its adapter's tag.
#   bash bench/field-harness/run.sh [CELL ...]
#   FIELD_SCALE=0.25 FIELD_SOAK_MIN=2 bash bench/field-harness/run.sh chaos_postgres_restart   # a quick look
# Writes bench/.data/field-harness (the harness checkout, a virtualenv, the cluster, each
# cell's results and log) and the "## Field harness" section of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
harness_git=${FIELD_HARNESS_GIT:-/work/.mirror/hardbyte+postgresql-job-queue-benchmarking/repo}
absurd_git=${FIELD_ABSURD_GIT:-/work/.mirror/earendil-works+absurd/repo}
[ -d "$harness_git" ] || { echo "no snapshot of hardbyte/postgresql-job-queue-benchmarking at $harness_git (FIELD_HARNESS_GIT)" >&2; exit 1; }
bash scripts/install-deps.sh --test

swift build -c release --product discern 2>&1 | tail -n 1
swift build -c release --product ScaleBench 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)
export DISCERN_BIN="$bin/discern" SCALEBENCH_BIN="$bin/ScaleBench"

data=bench/.data/field-harness
mkdir -p "$data"
data=$(cd "$data" && pwd)
# The harness at the snapshot's commit, as files; again only when the snapshot moved.
commit=$(git --git-dir="$harness_git" rev-parse HEAD)
if [ "$(cat "$data/harness.commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$data/harness" && mkdir -p "$data/harness"
    # File by file, not `git archive`: a snapshot may lack its largest blobs (published results
    # and plots), which the harness does not need.
    git --git-dir="$harness_git" ls-tree -r --name-only HEAD | grep -v '^results/' | while read -r path; do
        mkdir -p "$data/harness/$(dirname "$path")"
        git --git-dir="$harness_git" show "HEAD:$path" > "$data/harness/$path" 2>/dev/null || rm -f "$data/harness/$path"
    done
    echo "$commit" > "$data/harness.commit"
fi
# The harness's Python parts and the peers' pinned libraries (procrastinate-bench and
# absurd-bench's pyproject.toml), in a virtualenv of their own.
if [ ! -x "$data/venv/bin/python" ]; then
    python3 -m venv "$data/venv"
    # Wheels fetched earlier (pip download -d "$data/wheels" ...) are taken first.
    "$data/venv/bin/pip" install --quiet --find-links "$data/wheels" 'psycopg[binary]==3.3.3' 'pandas>=2.2' 'numpy>=2.0' 'matplotlib>=3.9' 'pydantic>=2' \
        'procrastinate==3.8.1' 'absurd-sdk==0.3.0'
fi
export FIELD_PEER_PYTHON="$data/venv/bin/python"
if git --git-dir="$absurd_git" show 0.3.0:sql/absurd.sql > "$data/absurd.sql" 2>/dev/null; then
    export ABSURD_SQL_PATH="$data/absurd.sql"
else
    echo "no snapshot of earendil-works/absurd at $absurd_git (FIELD_ABSURD_GIT): absurd left out" >&2
    export FIELD_SYSTEMS=${FIELD_SYSTEMS:-discern,procrastinate}
fi

# The harness's postgres.conf (max_connections 400 for pool exhaustion's 300 idle connections),
# with fsync on as there: scripts/postgres.sh turns it off for throwaway test clusters.
export PG_MAX_CONNECTIONS=400
export PG_EXTRA_OPTIONS="-c fsync=on -c shared_buffers=256MB -c work_mem=8MB -c maintenance_work_mem=128MB \
 -c synchronous_commit=on -c autovacuum_naptime=60s -c autovacuum_vacuum_cost_delay=2ms -c autovacuum_vacuum_cost_limit=200 \
 -c autovacuum_vacuum_scale_factor=0.2 -c autovacuum_analyze_scale_factor=0.1 -c autovacuum_vacuum_threshold=50 \
 -c autovacuum_analyze_threshold=50 -c log_min_duration_statement=5000"
folder="$data/pg"
bash scripts/postgres.sh stop "$folder"  # a cluster left running would keep the options it was started with
bash scripts/postgres.sh start "$folder" >/dev/null
trap 'bash scripts/postgres.sh stop "$folder"' EXIT
"$data/venv/bin/python" bench/field-harness/run.py "$data/harness" "$folder" "$@"
