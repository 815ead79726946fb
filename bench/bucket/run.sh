#!/usr/bin/env bash
# Photos read from a bucket beside the same photos on local disk: `discern work --drain` at its
# defaults on 12 MP JPEGs, (a) from a folder, (b) from a SeaweedFS bucket with SigV4 enforced
# (HEAD + GET into an unnamed file per photo), (c) the peer's way, `aws s3 sync` of the bucket to
# a folder and then (a); alternating, 3 rounds, against the simulator answering each analyze
# after 0.3 s. Writes the "Photos from a bucket" section of bench/RESULTS.md. About 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
[ -x /usr/bin/time ] || apt-get install -y -qq time
python3 -c 'import awscli' 2>/dev/null || python3 -m pip install --quiet awscli
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/bucket/run.py "$@"
