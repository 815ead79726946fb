#!/usr/bin/env bash
# What tracing costs the hot path (docs/tracing.md), with bench/peer/runtime_ab.py:
#   1. an earlier build of the worker runtime against this checkout's, tracing off: what the
#      span helpers cost when nobody traces (they should cost nothing measurable);
#   2. this checkout's, tracing off, against the same binary with OTEL_EXPORTER_OTLP_ENDPOINT
#      set: every job's spans (claim, process, complete) exported over OTLP/HTTP to
#      scripts/otlp-receiver.py --discard, which answers without decoding (a collector elsewhere).
#   bash bench/peer/tracing_ab.sh BEFORE-ScaleBench URL [JOBS] [ROUNDS]
# BEFORE-ScaleBench: `git worktree add /tmp/before REV && (cd /tmp/before && swift build -c release
# --product ScaleBench)`. Writes two sections of bench/RESULTS.md. About 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$1 url=$2 jobs=${3:-50000} rounds=${4:-3}
swift build -c release --product ScaleBench 2>&1 | tail -1
after=$PWD/.build/release/ScaleBench
work=$(mktemp -d)
receiver_pid=
trap '[ -n "$receiver_pid" ] && kill "$receiver_pid" 2>/dev/null; rm -rf "$work"' EXIT
python3 scripts/otlp-receiver.py --discard --port 0 --url-file "$work/url" --log "$work/spans.jsonl" >/dev/null &
receiver_pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
cat > "$work/traced" <<SCRIPT
#!/bin/sh
OTEL_EXPORTER_OTLP_ENDPOINT=$(cat "$work/url") exec "$after" "\$@"
SCRIPT
chmod +x "$work/traced"
AB_SECTION="## Tracing off against before" AB_LABEL="Before: $before; after: this checkout, OTEL_* unset." \
    python3 bench/peer/runtime_ab.py "$before" "$after" "$url" "$jobs" "$rounds"
AB_SECTION="## Tracing on against off" AB_LABEL="Before: this checkout, OTEL_* unset; after: the same binary exporting every span over OTLP/HTTP to a receiver that discards them." \
    python3 bench/peer/runtime_ab.py "$after" "$work/traced" "$url" "$jobs" "$rounds"
