#!/usr/bin/env bash
# Runs a command inside a root file system (chroot), with /proc, /dev and /sys mounted for it
# alone (a private mount namespace: nothing stays mounted after it ends). Needs root.
#   scripts/in-root.sh ROOT COMMAND [ARGUMENTS...]
set -euo pipefail
root=$(realpath "${1:?usage: in-root.sh ROOT COMMAND...}")
shift
exec unshare --mount --propagation private --fork sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" && mount -t sysfs sys "$root/sys" \
        && exec chroot "$root" "$@"' in-root "$root" "$@"
