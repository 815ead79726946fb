#!/usr/bin/env bash
# The main job on an embedded default: a private PostgreSQL, the service simulator, generated
# sample photos; enqueue them, drain them with a worker, print the results.
# Everything lives in .discern/ under the project; the database stays up afterwards for psql.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
state="$PWD/.discern"
mkdir -p "$state"

bash scripts/install-deps.sh

echo "==> building discern"
swift build 2>&1 | { grep -Ev '^warning: (prohibited flag|.swift-distributed-tracing.)' || true; } | tail -n 3
discern="$(swift build --show-bin-path)/discern"

echo "==> starting PostgreSQL (private cluster in .discern/pg)"
export DISCERN_DATABASE_URL=$(bash scripts/postgres.sh start "$state/pg")
"$discern" migrate

echo "==> starting the service simulator"
rm -f "$state/simulator.url"
"$discern" simulate --port 0 --url-file "$state/simulator.url" --log-level warning &
simulator=$!
trap 'kill $simulator 2>/dev/null || true; wait $simulator 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$state/simulator.url" ] && break; sleep 0.1; done
[ -s "$state/simulator.url" ] || { echo "the simulator did not start" >&2; exit 1; }
export DISCERN_DISCERNER_URL=$(cat "$state/simulator.url")

# Workers read job files only from these folders.
export DISCERN_PATH_ROOTS="$state"

echo "==> generating sample photos with libvips"
rm -rf "$state/samples"
"$discern" samples "$state/samples"

batch="demo-$(date +%Y%m%d-%H%M%S)"
echo "==> enqueueing them as batch $batch"
# The samples are the same every run, and enqueue skips content already analysed: --no-dedupe
# analyses them again, so each run of the demo shows fresh results.
"$discern" enqueue "$state/samples" --batch "$batch" --no-dedupe

echo "==> draining the queue"
"$discern" work --drain --log-level warning

echo "==> results of batch $batch (from discern.results, via psql)"
psql "$DISCERN_DATABASE_URL" -v batch="$batch" -X -q <<'SQL'
SELECT r.job_id AS job,
       regexp_replace(r.image_path, '^.*/', '') AS file,
       r.category, r.operator, r.fleet_id, r.license_plate,
       round(r.confidence::numeric, 3) AS confidence,
       pg_size_pretty(r.original_bytes) AS original,
       pg_size_pretty(r.sent_bytes) AS sent,
       CASE WHEN r.passed_through THEN 'as is' ELSE 'prepared, q' || r.jpeg_quality END AS image
FROM discern.results r
JOIN discern.batches b ON b.id = r.batch_id
WHERE b.name = :'batch'
ORDER BY r.job_id;
SQL

echo "==> every entity the service reported (discern.entity_sightings; a photo may hold several)"
psql "$DISCERN_DATABASE_URL" -v batch="$batch" -X -q <<'SQL'
SELECT e.job_id AS job, e.position AS "#", CASE WHEN e.is_primary THEN 'yes' ELSE '' END AS primary,
       e.type, e.operator, coalesce(e.fleet_id, e.container_id, e.tail_id) AS identifier,
       e.license_plate || coalesce(' (' || e.license_plate_jurisdiction || ')', '') AS plate, e.confidence
FROM discern.entity_sightings e
JOIN discern.batches b ON b.id = e.batch_id
WHERE b.name = :'batch'
ORDER BY e.job_id, e.position;
SQL

echo "==> the batch report (discern report --batch $batch)"
"$discern" report --batch "$batch"

echo
cat <<EOF2
PostgreSQL is still running for you to look around:
  psql '$DISCERN_DATABASE_URL' -c 'SELECT * FROM discern.queue_depth'
Stop it with: bash scripts/postgres.sh stop .discern/pg
EOF2
