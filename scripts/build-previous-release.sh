#!/usr/bin/env bash
# Builds the previous release's discern (the newest CHANGELOG.md section that names a commit, other
# than the version this tree carries), for the upgrade test: its source from git, its own build
# folder, built once per commit. Prints the binary's path.
#   scripts/build-previous-release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
commit=$(sed -n 's/^Commit: \([0-9a-f]\{7,40\}\).*/\1/p' CHANGELOG.md | head -n 1)
[ -n "$commit" ] || { echo "build-previous-release.sh: CHANGELOG.md names no release commit" >&2; exit 1; }
# A shallow clone lacks the release's commit: its history is fetched once.
if ! git cat-file -e "$commit^{commit}" 2>/dev/null && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    git fetch --quiet --unshallow >&2 || true
fi
git cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "build-previous-release.sh: commit $commit (CHANGELOG.md) is not in this clone: clone with its history" >&2
    exit 1
}
folder=.build-previous/$commit
binary=$folder/scratch/debug/discern
if [ ! -x "$binary" ]; then
    rm -rf "$folder/src" && mkdir -p "$folder/src"
    git archive "$commit" | tar -x -C "$folder/src"
    # The stamp plugin (when the release has one) reads the commit from here: there is no .git.
    DISCERN_BUILD_COMMIT=$commit swift build --package-path "$folder/src" --scratch-path "$folder/scratch" --product discern 2>&1 \
        | { grep -E '^(error|.*error:)' || true; } >&2
    [ -x "$binary" ] || { echo "build-previous-release.sh: the build of $commit failed" >&2; exit 1; }
fi
realpath "$binary"
