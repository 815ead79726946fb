#!/usr/bin/env bash
# Makes a release of the commit checked out: one release build with --static-swift-stdlib
# (libvips, libpq and libcurl stay Debian's shared libraries), and from that one binary, in dist/:
#   discern_<version>_amd64.deb          apt install ./discern_<version>_amd64.deb (Debian 12)
#   discern-<version>-linux-amd64.tar.gz  the same files as the package, to unpack by hand
#   discern_<version>_oci.tar            the OCI image (buildah/podman/skopeo: oci-archive:)
#   discern-<version>.spdx.json          the software bill of materials (SPDX 2.3)
#   SHA256SUMS
# Each names the same version and commit. The tree must be clean (DISCERN_RELEASE_ALLOW_DIRTY=1
# to try it out anyway) and CHANGELOG.md must have a section for the version.
#   bash scripts/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --release

if [ -n "$(git status --porcelain --untracked-files=no)" ] && [ "${DISCERN_RELEASE_ALLOW_DIRTY:-0}" != 1 ]; then
    echo "release.sh: the tree has uncommitted changes; a release is a commit (DISCERN_RELEASE_ALLOW_DIRTY=1 to try anyway)" >&2
    exit 1
fi

echo "==> release build (--static-swift-stdlib)"
bash scripts/build-static.sh .build-release release 2>&1 | { grep -Ev '^warning: (prohibited flag|.swift-distributed-tracing.)' || true; }
binary=.build-release/release/discern
info=$("$binary" version --format json)
version=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["version"])' "$info")
commit=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["commit"])' "$info")
head=$(git rev-parse --short=12 HEAD)
case "$commit" in "$head"|"$head-modified") ;; *) echo "release.sh: the binary says commit $commit, HEAD is $head" >&2; exit 1 ;; esac
grep -q "^## \[$version\]" CHANGELOG.md || { echo "release.sh: CHANGELOG.md has no section for $version" >&2; exit 1; }

rm -rf dist && mkdir -p dist
echo "==> package"
deb=$(bash scripts/package-deb.sh "$binary" dist "$(bash scripts/generate-manual-tool.sh .build-release)")
lintian --fail-on error --suppress-tags initial-upload-closes-no-bugs "$deb"

echo "==> tarball"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
dpkg-deb -x "$deb" "$tree/discern-$version"
tar -C "$tree" --owner=0 --group=0 --numeric-owner --sort=name -czf "dist/discern-$version-linux-amd64.tar.gz" "discern-$version"

echo "==> image"
bash scripts/oci-image.sh "$deb" "dist/discern_${version}_oci.tar"

echo "==> software bill of materials"
python3 scripts/sbom.py --version "$version" --commit "$commit" --binary "$binary" --deb "$deb" \
    --resolved Package.resolved > "dist/discern-$version.spdx.json"

(cd dist && sha256sum -- * > SHA256SUMS)
echo "==> dist/ (discern $version, commit $commit)"
ls -l dist
