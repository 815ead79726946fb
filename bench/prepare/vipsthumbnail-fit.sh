#!/usr/bin/env bash
# What a user would script with vipsthumbnail: shrink to 4096 px, then lower the JPEG quality
# until the file fits the budget; if even quality 70 (discern's floor) is too big, shrink further and try again.
#   vipsthumbnail-fit.sh FILE OUTDIR [BUDGET]
set -euo pipefail
file=$1 out=$2 budget=${3:-10000000}
name=$(basename "${file%.*}").jpg
size=4096
while :; do
    for quality in 85 80 75 70; do
        vipsthumbnail "$file" --size "${size}x${size}>" -o "$out/$name[Q=$quality,strip]"
        if [ "$(stat -c %s "$out/$name")" -le "$budget" ]; then exit 0; fi
    done
    size=$((size * 8 / 10))
    [ "$size" -ge 64 ] || exit 1
done
