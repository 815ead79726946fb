#!/usr/bin/env bash
# A clean Debian 12 root file system as a tarball (mmdebstrap, minbase, no Swift, no docs or man
# pages): what the package test installs discern into, and the base of the OCI image. Made once
# and kept (default /var/tmp/discern-bookworm-slim.tar, or $DISCERN_BOOKWORM_ROOT); prints its path.
# Its apt sources are this machine's own Debian mirrors.
set -euo pipefail
tarball=${DISCERN_BOOKWORM_ROOT:-/var/tmp/discern-bookworm-slim.tar}
if [ -s "$tarball" ]; then echo "$tarball"; exit 0; fi
sources=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | xargs -r grep -l 'debian' | head -n 1)
[ -n "$sources" ] || sources=/etc/apt/sources.list
partial="${tarball%.tar}.partial-$$.tar"
trap 'rm -f "$partial"' EXIT
# A mirror that fails a download now and then (seen once in a test run) gets two more tries.
for try in 1 2 3; do
    mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
        --aptopt='Acquire::Languages "none"' --aptopt='Acquire::Retries "3"' \
        --customize-hook='rm -f "$1"/etc/resolv.conf "$1"/etc/hostname' \
        bookworm "$partial" "$sources" >&2 && break
    [ "$try" = 3 ] && exit 1
    echo "bookworm-root.sh: mmdebstrap failed (try $try of 3); trying again" >&2
    sleep 5
done
mv "$partial" "$tarball"
echo "$tarball"
