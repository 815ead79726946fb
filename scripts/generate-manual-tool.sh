#!/usr/bin/env bash
# Builds swift-argument-parser's generate-manual tool (it writes man pages from a command's own
# description of itself) from the copy of swift-argument-parser the package resolved, into
# .build-tools/, once; prints its path.
#   scripts/generate-manual-tool.sh [SCRATCH_PATH]   (default .build)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scratch=${1:-.build}
checkout="$scratch/checkouts/swift-argument-parser"
[ -f "$checkout/Package.swift" ] || swift package --scratch-path "$scratch" resolve >/dev/null
tool=.build-tools/debug/generate-manual
if [ ! -x "$tool" ]; then
    swift build --package-path "$checkout" --scratch-path .build-tools --product generate-manual >&2
fi
realpath "$tool"
