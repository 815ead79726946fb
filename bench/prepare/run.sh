#!/usr/bin/env bash
# Builds discern in release mode, installs Pillow (and pillow-heif) for the comparison, runs
# the image preparation benchmark and updates bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
command -v vipsthumbnail >/dev/null || apt-get install -y -qq libvips-tools
[ -x /usr/bin/time ] || apt-get install -y -qq time
python3 -c 'import PIL, pillow_heif' 2>/dev/null || python3 -m pip install --quiet pillow pillow-heif
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/prepare/run.py
