#!/usr/bin/env bash
# Makes a release of the commit checked out: one release build with --static-swift-stdlib
# (libvips, libpq and libcurl stay Debian's shared libraries), and from that one binary, in dist/:
#   discern_<version>_amd64.deb          apt install ./discern_<version>_amd64.deb (Debian 12)
#   discern-<version>-linux-amd64.tar.gz  the same files as the package, to unpack by hand
#   discern_<version>_oci.tar            the OCI image (buildah/podman/skopeo: oci-archive:)
#   discern-<version>.spdx.json          the software bill of materials (SPDX 2.3)
#   SHA256SUMS
# Each names the same version and commit. The tree must be clean (DISCERN_RELEASE_ALLOW_DIRTY=1
# to try it out anyway) and the commit a release: CHANGELOG.md's newest section, which names no
# commit yet (or names this one). A later commit builds as X.Y.Z+git... (scripts/build-version.sh)
# and is no release until a section of its own is committed.
#   bash scripts/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh --release

if [ -n "$(git status --porcelain --untracked-files=no)" ] && [ "${DISCERN_RELEASE_ALLOW_DIRTY:-0}" != 1 ]; then
    echo "release.sh: the tree has uncommitted changes; a release is a commit (DISCERN_RELEASE_ALLOW_DIRTY=1 to try anyway)" >&2
    exit 1
fi

# Which version the build will carry, asked before the build, as the build itself will ask.
version=$(sh scripts/build-version.sh .)
head=$(git rev-parse --short=12 HEAD)
case "$version" in
*+*)
    echo "release.sh: commit $head builds as $version, after release ${version%%+*}: it is no release. Add the new release's section to CHANGELOG.md first (## [X.Y.Z] - YYYY-MM-DD, what [Unreleased] holds), commit it and run release.sh on that commit; its Commit: line follows in the next commit" >&2
    exit 1
    ;;
esac
grep -q "^## \[$version\]" CHANGELOG.md || { echo "release.sh: CHANGELOG.md has no section for $version" >&2; exit 1; }
named=$(awk -v heading="## [$version]" 'index($0, heading) == 1 { found = 1; next } found && /^## / { exit } found && /^Commit: / { print $2; exit }' CHANGELOG.md)
if [ -n "$named" ]; then
    case "$(git rev-parse HEAD)" in
    "$named"*) ;;
    *) echo "release.sh: CHANGELOG.md says $version is commit $named; HEAD is $head" >&2; exit 1 ;;
    esac
elif grep -q '^## \[Unreleased\]' CHANGELOG.md; then
    echo "release.sh: CHANGELOG.md has an [Unreleased] section above $version, whose section names no Commit: line: if $version is out, add its Commit: line; if this commit is the next release, turn [Unreleased] into its section" >&2
    exit 1
fi

echo "==> release build (--static-swift-stdlib)"
bash scripts/build-static.sh .build-release release 2>&1 | { grep -Ev '^warning: (prohibited flag|.swift-distributed-tracing.)' || true; }
binary=.build-release/release/discern
info=$("$binary" version --format json)
built=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["version"])' "$info")
commit=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["commit"])' "$info")
case "$commit" in "$head"|"$head-modified") ;; *) echo "release.sh: the binary says commit $commit, HEAD is $head" >&2; exit 1 ;; esac
[ "$built" = "$version" ] || { echo "release.sh: the binary says version $built, scripts/build-version.sh $version" >&2; exit 1; }

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
