#!/usr/bin/env bash
# The quick loop while working on discern: the module map (scripts/check-layers.sh), the format
# (.swift-format), a build of what changed, and the unit tests (no PostgreSQL, no processes, no
# network). Seconds to a few minutes from a warm build; the full suite is scripts/test.sh, which
# CI runs. It installs nothing: run scripts/test.sh (or scripts/install-deps.sh --test) once first.
# Extra arguments go to `swift test` (e.g. --filter ObjectStorage).
#   bash scripts/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
step() { echo "==> $1 ($SECONDS s)"; }

step "the module map and the format"
bash scripts/check-source.sh
step "building"
swift build --build-tests 2>&1 | { grep -Ev '^warning: (prohibited flag|.swift-distributed-tracing.)' || true; }
step "the unit tests"
# As scripts/test.sh: libvips then writes nothing to the environment of a threaded process.
VIPSHOME=${VIPSHOME:-$(pkg-config --variable=prefix vips)}
export VIPSHOME
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --filter UnitTests "$@" >"$log" 2>&1 || status=$?
# What failed, then the runner's summary (its whole tail when it has none: a crash).
grep -E '✘|error:' "$log" | head -n 60 || true
grep -E 'Test run with' "$log" || tail -n 30 "$log"
step "done (status $status)"
exit "$status"
