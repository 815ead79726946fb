#!/usr/bin/env bash
# A bulk action over 100,000 matching jobs: `discern retry --batch` (a thousand jobs a
# transaction, JobControl.inChunks) beside one statement of discern.retry over the whole batch,
# on a private cluster, each on a batch of its own. Prints both times. Not a test. About a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
jobs=${JOBS:-100000}
bash scripts/install-deps.sh --test
swift build -c release --product discern 2>&1 | tail -n 1
discern=.build/release/discern
folder=$(mktemp -d /tmp/discern-bulk.XXXXXX)
chmod 755 "$folder"
trap 'bash scripts/postgres.sh stop "$folder" >/dev/null 2>&1 || true; rm -rf "$folder"' EXIT
url=$(bash scripts/postgres.sh start "$folder")
"$discern" migrate --database-url "$url" >/dev/null
for name in chunked whole; do
    psql "$url" -q <<SQL
INSERT INTO discern.batches (name) VALUES ('$name');
INSERT INTO discern.jobs (image_path, batch_id)
SELECT '/photos/$name/' || g || '.jpg', (SELECT id FROM discern.batches WHERE name = '$name') FROM generate_series(1, $jobs) g;
UPDATE discern.jobs SET state = 'dead', finished_at = now(), attempts = 5, error_kind = 'http_5xx'
WHERE batch_id = (SELECT id FROM discern.batches WHERE name = '$name');
SQL
done
psql "$url" -qc "VACUUM ANALYZE discern.jobs"
started=$(date +%s.%N)
"$discern" retry --batch chunked --database-url "$url"
chunked=$(echo "$(date +%s.%N) - $started" | bc)
started=$(date +%s.%N)
psql "$url" -qAtc "SELECT discern.retry(array_agg(id)) FROM discern.jobs WHERE batch_id = (SELECT id FROM discern.batches WHERE name = 'whole') AND state = 'dead'"
whole=$(echo "$(date +%s.%N) - $started" | bc)
echo "retry of $jobs dead jobs: a thousand a transaction ${chunked} s; one statement ${whole} s (holding every row's lock that long)"
