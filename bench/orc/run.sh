#!/usr/bin/env bash
# Is ORC safe to turn on? Debian bookworm's orc 0.4.33 compiles and frees its code without
# a lock, which crashed libvips resizes on several threads once (sharp #3677). ORC is off by
# default; with DISCERN_VIPS_ORC=1 discern builds and frees pipelines under one lock
# (Imaging/VipsBuildLock.swift). This stress run resizes large
# JPEGs on 8 threads, with ORC on, again and again for DURATION seconds (default 300), and
# counts crashes. Writes the "ORC stress" section of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
duration=${DURATION:-300}
bash scripts/install-deps.sh --test
swift build -c release --product discern 2>&1 | tail -n 1
discern=.build/release/discern
data=bench/.data/orc
if [ ! -f "$data/set.complete" ]; then
    rm -rf "$data/set"
    "$discern" samples "$data/set" --size 6000x4000 --count 8 --seed 700 --grain 4 --prefix p24 >/dev/null
    "$discern" samples "$data/set" --size 8000x6000 --count 4 --seed 800 --grain 4 --prefix p48 >/dev/null
    "$discern" samples "$data/set" --size 5000x3750 --count 4 --seed 900 --grain 40 --quality 98 --prefix heavy >/dev/null
    touch "$data/set.complete"
fi
runs=0 crashes=0 images=0 failures=""
started=$(date +%s)
while [ $(( $(date +%s) - started )) -lt "$duration" ]; do
    # No transform floor: every image is resized from full or half scale, the ORC-heavy path.
    set +e
    output=$(DISCERN_VIPS_ORC=1 "$discern" prepare "$data/set" --threads 8 --quiet --transform-floor 0 --max-dimension 3000 2>&1)
    status=$?
    set -e
    runs=$((runs + 1))
    if [ $status -ne 0 ]; then
        crashes=$((crashes + 1))
        failures="$failures run $runs exited $status: $(echo "$output" | tail -n 3 | tr '\n' ' ');"
    else
        images=$((images + $(echo "$output" | sed -n 's/^images: \([0-9]*\).*/\1/p')))
    fi
done
elapsed=$(( $(date +%s) - started ))
section="## ORC stress: large resizes on 8 threads (bench/orc)

Run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, liborc $(dpkg-query -W -f='${Version}' liborc-0.4-0 2>/dev/null || echo unknown), vips $(pkg-config --modversion vips).
\`discern prepare\` over 16 JPEGs (8 x 24 MP, 4 x 48 MP, 4 x 19 MP heavy grain) with \`--threads 8\`, ORC on, every image
resized to 3000 px (no transform floor), repeated for ${elapsed} s.

| runs | images resized | crashes |
|---|---|---|
| $runs | $images | $crashes |

${failures:-No run failed.} With \`DISCERN_VIPS_ORC=1\`, pipeline builds and frees are serialised under one lock
(VipsBuildLock); decoding and encoding run in parallel. ORC is off by default (docs/design.md, image preparation).
"
# bench/prepare/run.py's write_section replaces this section of bench/RESULTS.md, as every bench does.
python3 -c 'import sys; sys.path.insert(0, "bench/prepare"); from run import write_section; write_section(sys.argv[1], sys.argv[2])' \
    "$section" "## ORC stress"
echo "$runs runs, $images images, $crashes crashes"
[ "$crashes" -eq 0 ]
