#!/usr/bin/env bash
# Runs every test against real parts: installs what is missing, starts a private PostgreSQL
# cluster in a temporary folder, runs `swift test`, and stops the cluster however the run ends.
# Extra arguments go to `swift test` (e.g. --filter Queue).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

bash scripts/install-deps.sh --test
# The module map holds before anything is built (docs/design.md, "The map").
bash scripts/check-layers.sh

pgdir=$(mktemp -d /tmp/discern-test-pg.XXXXXX)
chmod 755 "$pgdir"
cleanup() {
    bash scripts/postgres.sh stop "$pgdir" || true
    rm -rf "$pgdir"
}
trap cleanup EXIT
# Every test runs in parallel with its own database, worker processes and consoles: at the
# suite's peak they hold more than PostgreSQL's default 100 (or our usual 200) connections.
export PG_MAX_CONNECTIONS=${PG_MAX_CONNECTIONS:-400}
export DISCERN_TEST_DATABASE_URL=$(bash scripts/postgres.sh start "$pgdir")
echo "==> PostgreSQL for tests: $DISCERN_TEST_DATABASE_URL"

echo "==> building"
# Known noise from dependencies is filtered; pipefail keeps a failed build failing the run.
swift build --build-tests 2>&1 | { grep -Ev '^warning: (prohibited flag|.swift-distributed-tracing.)' || true; }
echo "==> testing"
swift test --skip-build "$@"
