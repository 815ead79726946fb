#!/usr/bin/env bash
# Builds discern as the package ships it: linked with --static-swift-stdlib (libvips, libpq and
# libcurl stay Debian's shared libraries) and with immediate binding (-z now, -z relro).
#   scripts/build-static.sh SCRATCH_PATH [debug|release]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scratch=${1:?usage: build-static.sh SCRATCH_PATH [debug|release]}
swift build -c "${2:-debug}" --static-swift-stdlib --product discern --scratch-path "$scratch" \
    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
