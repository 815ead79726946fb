#!/usr/bin/env bash
# End-to-end worker benchmark: discern work --drain at its defaults beside a short pyvips pipeline
# (pyvips + requests + psycopg, 8 threads, the same image policy), alternating, on two generated
# photo sets against the simulator answering each analyze after 0.3 s; the decode + encode floor; a slow service
# (each analyze after 3 s). Writes the runtime section of bench/RESULTS.md. Not a test. About 10 minutes on
# 2 cores. `--quick` (24 images, 1 round) is a functional check: point BENCH_RESULTS elsewhere.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
[ -x /usr/bin/time ] || apt-get install -y -qq time
venv=bench/.venv
if ! "$venv/bin/python" -c 'import sys, pyvips, requests, psycopg; sys.exit(pyvips.version(0) * 100 + pyvips.version(1) < 818)' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'pyvips[binary]' 'pyvips-binary==8.18.*' requests 'psycopg[binary]'
    # With libvips-dev on the machine (discern builds against it) pip compiles pyvips' _libvips
    # against the system's libvips, over pyvips-binary's: put the bundled one (libvips 8.18) back.
    "$venv/bin/pip" install --quiet --force-reinstall --no-deps 'pyvips-binary==8.18.*'
fi
# The floor again with Debian's libvips 8.14 and its libjpeg-turbo and zlib, the libraries discern
# links: pyvips compiled against libvips-dev, in a venv of its own.
debian=bench/.venv-debian
if ! "$debian/bin/python" -c 'import sys, pyvips; sys.exit(not pyvips.API_mode or pyvips.version(1) != 14)' 2>/dev/null; then
    python3 -m venv "$debian"
    "$debian/bin/pip" install --quiet --no-binary pyvips pyvips requests 'psycopg[binary]'
fi
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/runtime/run.py "$@"
