#!/usr/bin/env bash
# The read side before and after a change, side by side (bench/readmodel/run.py):
#   bench/readmodel/run.sh BEFORE-REV [JOBS] [ROUNDS]
# builds BEFORE-REV's release binary in a worktree under bench/.data, this tree's beside it,
# seeds one private PostgreSQL and times both, taking turns; updates bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --test
before_rev=${1:?name the revision to compare with, e.g. bench/readmodel/run.sh 40a9d49}
tree=bench/.data/readmodel-before
if [ ! -d "$tree" ]; then git worktree add --detach "$tree" "$before_rev" >/dev/null; fi
git -C "$tree" checkout --quiet --detach "$before_rev"
(cd "$tree" && swift build -c release --product discern 2>&1 | tail -n 1)
swift build -c release --product discern 2>&1 | tail -n 1
python3 bench/readmodel/run.py "$(cd "$tree" && swift build -c release --show-bin-path)/discern" \
    "$(swift build -c release --show-bin-path)/discern" "${2:-1000000}" "${3:-3}"
