#!/usr/bin/env bash
# End-to-end worker benchmark: discern work against the simulator with 300 ms per call, beside
# the CPU-bound limit and a straightforward Python pipeline, in one run. Writes the runtime
# section of bench/RESULTS.md. Not a test. Takes about 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
[ -x /usr/bin/time ] || apt-get install -y -qq time
python3 -c 'import PIL, requests, psycopg' 2>/dev/null || python3 -m pip install --quiet pillow requests 'psycopg[binary]'
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/runtime/run.py "$@"
