#!/usr/bin/env bash
# Builds the OCI image from a discern .deb with buildah (deploy/container/Containerfile), tags it
# discern:<version> in buildah's local storage and writes it as an OCI archive. A tag takes no +:
# a build after a release (0.10.0+git...) is tagged with _ in its place (discern:0.10.0_git...),
# as Docker and Helm do; its version label keeps the +.
#   scripts/oci-image.sh DEB OUT.tar
# The base, debian:bookworm-slim, is made here from Debian's packages (scripts/bookworm-root.sh)
# when buildah does not have it: no registry needs to be reached.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(realpath "${1:?usage: oci-image.sh DEB OUT.tar}")
out=${2:?usage: oci-image.sh DEB OUT.tar}
version=$(dpkg-deb -f "$deb" Version)
tag=${version//+/_}
revision=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/discern/BUILD-INFO.json \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["commit"])')
export BUILDAH_ISOLATION=chroot
if ! buildah inspect --type image debian:bookworm-slim >/dev/null 2>&1; then
    root_tarball=$(bash scripts/bookworm-root.sh)
    base=$(buildah from scratch)
    buildah add --quiet "$base" "$root_tarball" / >/dev/null
    buildah config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$base"
    buildah commit --quiet --rm "$base" debian:bookworm-slim >/dev/null
fi
# The previous build of this version, untagged by the new one, would stay behind as a nameless image.
buildah rmi "discern:$tag" >/dev/null 2>&1 || true
context=$(mktemp -d)
errors=$(mktemp)
trap 'rm -rf "$context" "$errors"' EXIT
cp "$deb" "$context/"
# buildah runs the RUN step by re-executing itself from a copy it seals in memory, and the
# kernel now and then refuses that seal with EBUSY (5 copies in 3,000 on a busy machine here).
# buildah then stops before the step starts: that failure, and only it, is built again.
# --force-rm leaves no failed build's container behind.
for attempt in 1 2 3; do
    status=0
    buildah bud --quiet --isolation chroot --pull=never --layers=false --force-rm \
        --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
        -f deploy/container/Containerfile -t "discern:$tag" "$context" >/dev/null 2>"$errors" || status=$?
    cat "$errors" >&2
    [ "$status" -eq 0 ] && break
    if [ "$attempt" -eq 3 ] || ! grep -q 'sealing memfd copy: Device or resource busy' "$errors"; then
        exit "$status"
    fi
    echo "oci-image.sh: buildah could not seal its own copy; building again" >&2
done
rm -f "$out"
buildah push --quiet "discern:$tag" "oci-archive:$(realpath -m "$out"):discern:$tag"
echo "$out"
