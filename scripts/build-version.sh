#!/bin/sh
# Prints, on one line, the version a build of the package in DIR carries (BuildInfo.version: the
# StampBuild plugin runs this before every build, with /bin/sh). The release is CHANGELOG.md's
# newest `## [X.Y.Z]` section, and:
#   - a build of the commit its `Commit:` line names, or of any commit while it has no such line
#     (the release being cut), is that release: 0.10.0;
#   - any other build is the release it builds on, `+git`, its commit's committer time in UTC
#     and the commit: 0.10.0+git20261129.011500.99e50dd0a1b2. The time needs no history (a
#     shallow clone, a CI checkout) and orders two commits of a branch as dpkg and apt compare
#     versions: 0.10.0 < 0.10.0+git20261129.011500.… < 0.10.0+git20261129.020000.… < 0.11.0.
# A tree with uncommitted changes carries its commit's version (CHANGELOG.md as the commit has
# it; BuildInfo.commit says -modified). With DISCERN_BUILD_COMMIT set, or without git (a source
# tarball, the previous release built from `git archive`), CHANGELOG.md is read from DIR and the
# build is the release when DISCERN_BUILD_COMMIT is its commit, else <release>+git.<commit or
# unknown>. DISCERN_BUILD_VERSION, when set, is the version (digits, letters, . + ~: a Debian
# version without a revision). Never fails: a CHANGELOG.md without a release gives 0.0.0.
#   sh scripts/build-version.sh DIR
LC_ALL=C
export LC_ALL
dir=${1:-.}

if [ -n "${DISCERN_BUILD_VERSION:-}" ]; then
    case $DISCERN_BUILD_VERSION in
    [0-9]*[!0-9A-Za-z.+~]* | [!0-9]*) ;;
    *)
        echo "$DISCERN_BUILD_VERSION"
        exit 0
        ;;
    esac
    echo "build-version.sh: DISCERN_BUILD_VERSION=$DISCERN_BUILD_VERSION is not a version (digits, letters, . + ~, starting with a digit); ignored" >&2
fi

head=
if [ -z "${DISCERN_BUILD_COMMIT:-}" ]; then
    head=$(git -C "$dir" rev-parse --verify -q HEAD 2>/dev/null) || head=
fi
changelog=
if [ -n "$head" ]; then
    changelog=$(git -C "$dir" show HEAD:./CHANGELOG.md 2>/dev/null) || changelog=
fi
if [ -z "$changelog" ]; then
    changelog=$(cat "$dir/CHANGELOG.md" 2>/dev/null) || changelog=
fi

# The newest release's number and the commit its section names (empty: none named yet).
release=$(printf '%s\n' "$changelog" | awk '/^## \[[0-9]+\.[0-9]+\.[0-9]+\]/ { print substr($2, 2, length($2) - 2); exit }')
release_commit=$(printf '%s\n' "$changelog" | awk '
    /^## \[[0-9]+\.[0-9]+\.[0-9]+\]/ { if (found) exit; found = 1; next }
    found && /^## / { exit }
    found && /^Commit: / { print $2; exit }')
[ -n "$release" ] || release=0.0.0
case $release_commit in
*[!0-9a-f]*) release_commit= ;;
esac
[ "${#release_commit}" -ge 7 ] || release_commit=

if [ -z "$release_commit" ]; then
    echo "$release"
    exit 0
fi

if [ -n "$head" ]; then
    case $head in
    "$release_commit"*)
        echo "$release"
        exit 0
        ;;
    esac
    stamp=$(TZ=UTC0 git -C "$dir" log -1 --format=%cd --date=format-local:%Y%m%d.%H%M%S HEAD 2>/dev/null) || stamp=
    case $stamp in
    [0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].[0-9][0-9][0-9][0-9][0-9][0-9])
        printf '%s+git%s.%.12s\n' "$release" "$stamp" "$head"
        exit 0
        ;;
    esac
    printf '%s+git.%.12s\n' "$release" "$head"
    exit 0
fi

commit=${DISCERN_BUILD_COMMIT:-}
case $commit in
'' | *[!0-9a-f]*) commit= ;;
esac
[ "${#commit}" -ge 7 ] || commit=
if [ -n "$commit" ]; then
    case $commit in
    "$release_commit"*)
        echo "$release"
        exit 0
        ;;
    esac
    case $release_commit in
    "$commit"*)
        echo "$release"
        exit 0
        ;;
    esac
    printf '%s+git.%.12s\n' "$release" "$commit"
else
    echo "$release+git.unknown"
fi
