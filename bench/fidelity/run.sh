#!/usr/bin/env bash
# Builds discern in release mode and drains a mixed folder with three workers against the
# simulator as strict as the real services, with the shipped rate limits; writes the figures to
# bench/RESULTS.md. About 4 minutes: the analyze limit (48 a minute) is what is measured.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/fidelity/run.py "$@"
