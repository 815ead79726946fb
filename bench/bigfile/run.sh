#!/usr/bin/env bash
# Memory per image, by pixels and not by file size: peak RSS of `discern prepare` on a
# 211 MB PNG, and of a worker preparing two of them at once within --max-mb-in-flight 64, for
# this checkout and for an earlier revision (default: ae6b042, the code that still sized memory by file), built
# in release mode side by side and run alternately, 3 rounds. Writes bench/RESULTS.md.
#   bash bench/bigfile/run.sh [REVISION]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
[ -x /usr/bin/time ] || apt-get install -y -qq time
before=${1:-ae6b042}
data=bench/.data/bigfile
mkdir -p "$data"

swift build -c release --product discern 2>&1 | tail -n 1
if [ ! -x "$data/before/.build/release/discern" ] || [ "$(git -C "$data/before" rev-parse --short HEAD 2>/dev/null)" != "$(git rev-parse --short "$before")" ]; then
    rm -rf "$data/before"; git worktree prune
    git worktree add --detach "$data/before" "$before" >/dev/null
    (cd "$data/before" && swift build -c release --product discern 2>&1 | tail -n 1)
fi

pgdir=$(mktemp -d /tmp/discern-bigfile-pg.XXXXXX)
chmod 755 "$pgdir"
trap 'bash scripts/postgres.sh stop "$pgdir" || true; rm -rf "$pgdir"; kill $sim 2>/dev/null || true' EXIT
url=$(bash scripts/postgres.sh start "$pgdir")
rm -f "$data/simulator.url"
.build/release/discern simulate --port 0 --url-file "$data/simulator.url" > "$data/simulator.log" 2>&1 &
sim=$!
for _ in $(seq 50); do [ -s "$data/simulator.url" ] && break; sleep 0.2; done
python3 bench/bigfile/run.py "$url" "$(cat "$data/simulator.url")" \
    .build/release/discern "$data/before/.build/release/discern" "$before"
