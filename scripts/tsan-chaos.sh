#!/usr/bin/env bash
# The chaos and fidelity tests under ThreadSanitizer, in a build folder of their own
# (.build-tsan): the test process and every worker process it starts are instrumented, and each
# process that finds something writes its report to $DISCERN_TSAN_DIR/report.<pid>.
# Known false positive: Synchronization.Mutex on Linux locks with a futex TSan cannot see, so a
# read and a write inside two withLock closures are reported as a race (docs/design.md,
# "Thread sanitizer"). Runs against a private PostgreSQL, as scripts/test.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
reports=${DISCERN_TSAN_DIR:-/tmp/discern-tsan}
rm -rf "$reports" && mkdir -p "$reports"

pgdir=$(mktemp -d /tmp/discern-tsan-pg.XXXXXX)
chmod 755 "$pgdir"
trap 'bash scripts/postgres.sh stop "$pgdir" || true; rm -rf "$pgdir"' EXIT
export DISCERN_TEST_DATABASE_URL=$(bash scripts/postgres.sh start "$pgdir")

swift build --build-tests --scratch-path .build-tsan -Xswiftc -sanitize=thread 2>&1 | grep -E '^(error|Build complete)' || true
TSAN_OPTIONS="log_path=$reports/report" swift test --skip-build --scratch-path .build-tsan \
    --filter "WorkerChaosTests|DatabaseChaosTests|RecoveryTests|StoredResultFidelityTests" "$@" || status=$?
echo "==> ThreadSanitizer reports: $(ls "$reports" | wc -l) in $reports"
for report in "$reports"/report.*; do
    [ -e "$report" ] && grep -h '^SUMMARY' "$report"
done | sort | uniq -c
exit "${status:-0}"
