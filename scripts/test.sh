#!/usr/bin/env bash
# Runs every test against real parts: installs what is missing, starts a private PostgreSQL
# cluster in a temporary folder, runs `swift test`, and stops the cluster however the run ends.
# Extra arguments go to `swift test` (e.g. --filter Queue).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

# Each phase says when it began: CI has 90 minutes for all of them.
phase() { echo "==> $1 ($(( SECONDS / 60 )) min $(( SECONDS % 60 )) s into the run)"; }
phase "installing what the tests need"
bash scripts/install-deps.sh --test
# The module map and the format hold before anything is built (docs/design.md, "The map").
bash scripts/check-source.sh

pgdir=$(mktemp -d /tmp/discern-test-pg.XXXXXX)
chmod 755 "$pgdir"
# This run's name, in the cgroups and disks the tests make (Tests/IntegrationTests/Support/
# TestRun.swift): the clean-up below takes back this run's, never another run's beside it.
export DISCERN_TEST_RUN=${pgdir##*.}
# Every temporary file of the run goes under this run's folder, which the clean-up removes:
# test folders, private clusters, Chromium's profiles and its own singleton folders, the
# compiler's scratch. A killed run (its tests never reach their own clean-up) left 2.6 GB of
# clusters and 3,000 folders in /tmp over a day of runs before this.
mkdir -m 1777 "$pgdir/tmp"
export TMPDIR="$pgdir/tmp"
# Every PostgreSQL cluster a test starts (chaos and outage tests) is listed here, so a run that
# dies cannot leave one behind; the test process itself runs in a session of its own, and
# whatever is left in that session when it ends (workers, consoles, simulators, Chromium) is
# killed: nothing a test starts outlives the run.
export DISCERN_CLUSTER_REGISTRY="$pgdir/clusters"
: > "$DISCERN_CLUSTER_REGISTRY"
# Daemons a test starts that leave the session (PgBouncer's -d forks into a session of its own)
# add their pidfile here, so a killed run takes them back too.
export DISCERN_PIDFILE_REGISTRY="$pgdir/pidfiles"
: > "$DISCERN_PIDFILE_REGISTRY"
session=""
cleanup() {
    # Again until the session is empty: a test killed while it started a process (a console
    # forked just as the first pass listed the session) leaves that child behind the first pass.
    if [ -n "$session" ]; then
        for _ in $(seq 50); do
            pkill -KILL -s "$session" 2>/dev/null || break
            sleep 0.1
        done
    fi
    sort -u "$DISCERN_PIDFILE_REGISTRY" 2>/dev/null | while read -r pidfile; do
        [ -s "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
        case "$pidfile" in "${TMPDIR:-/tmp}"/discern-pgbouncer-*) rm -rf "$(dirname "$pidfile")" ;; esac
    done
    sort -u "$DISCERN_CLUSTER_REGISTRY" 2>/dev/null | while read -r cluster; do
        [ -d "$cluster" ] && bash scripts/postgres.sh stop "$cluster" || true
    done
    bash scripts/postgres.sh stop "$pgdir" || true
    # What the tests made as root and leave only when killed: small disks they filled
    # (DatabaseWeatherTests), unmounted before their folder goes, and memory cgroups they ran a
    # worker in (MemoryLimitTests).
    for disk in "${TMPDIR:-/tmp}"/discern-disk-"$DISCERN_TEST_RUN"-*; do
        [ -d "$disk" ] || continue
        umount "$disk" 2>/dev/null || umount -l "$disk" 2>/dev/null || true
        rmdir "$disk" 2>/dev/null || true
    done
    find /sys/fs/cgroup -maxdepth 6 -type d -name "discern-test-$DISCERN_TEST_RUN-*" -exec rmdir {} + 2>/dev/null || true
    rm -rf "$pgdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Every test runs in parallel with its own database, worker processes and consoles (the upgrade
# and bucket tests run five and two workers each, the package tests one more): at the
# suite's peak they held more than 400 connections (PostgreSQL's default is 100).
export PG_MAX_CONNECTIONS=${PG_MAX_CONNECTIONS:-600}
export DISCERN_TEST_DATABASE_URL=$(bash scripts/postgres.sh start "$pgdir")
echo "==> PostgreSQL for tests: $DISCERN_TEST_DATABASE_URL"

phase "building"
# Known noise from dependencies is filtered; pipefail keeps a failed build failing the run.
noise='^warning: (prohibited flag|.swift-distributed-tracing.)'
swift build --build-tests 2>&1 | { grep -Ev "$noise" || true; }
# What the packaging tests install (Tests/IntegrationTests/Packaging): discern as the package ships
# it, linked with --static-swift-stdlib (the test bundle cannot be: Swift Testing is not there),
# the tool that writes its man pages, and the previous release CHANGELOG.md names. Each is built
# once and then only when its sources change. The static discern needs a build folder of its
# own: objects compiled for the shared runtime do not link statically (modules that use
# FoundationXML then miss its CoreFoundation half).
phase "building discern as the package ships it, and the previous release"
bash scripts/build-static.sh .build-static 2>&1 | { grep -Ev "$noise" || true; }
export DISCERN_PACKAGE_BINARY="$PWD/.build-static/debug/discern"
DISCERN_GENERATE_MANUAL=$(bash scripts/generate-manual-tool.sh)
DISCERN_PREVIOUS_BINARY=$(bash scripts/build-previous-release.sh)
export DISCERN_GENERATE_MANUAL DISCERN_PREVIOUS_BINARY
phase "testing"
# A crash prints the crashed thread only: the test process runs a thousand threads or more, and
# symbolicating every one of them took the rest of CI's 90 minutes once.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,threads=crashed}
# libvips' start sets VIPSHOME when it is unset, and in the test process it starts while other
# tests spawn programs: a setenv beside posix_spawn's copy of the environment crashed a run.
# Set here, before the process has threads, libvips finds it and writes nothing.
VIPSHOME=${VIPSHOME:-$(pkg-config --variable=prefix vips)}
export VIPSHOME
# setsid: the test process leads a session of its own (in a script, a background job is no
# group leader, so setsid needs no fork and $! is that process), which cleanup kills whole.
setsid swift test --skip-build "$@" &
session=$!
status=0
wait "$session" || status=$?
left=$(pgrep -s "$session" | wc -l || true)
if [ "$left" -gt 0 ]; then echo "==> $left process(es) the tests started outlived them: killed"; fi
phase "tests ended (status $status)"
exit "$status"
