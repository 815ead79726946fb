import Foundation
import PackagePlugin

/// Stamps the binary with the commit it is built from (`BuildInfo.commit`) and the version that
/// commit carries (`BuildInfo.version`, `BuildInfo.release`): before every build, a shell asks git
/// for HEAD (and whether tracked files differ from it) and scripts/build-version.sh for the
/// version (CHANGELOG.md's newest release, or `<release>+git<date>.<time>.<commit>` after it),
/// and rewrites the generated file only when that changed, so an unchanged commit rebuilds
/// nothing. `DISCERN_BUILD_COMMIT` names the commit where there is no git checkout (a source
/// tarball); `DISCERN_BUILD_VERSION`, the version.
@main
struct StampBuild: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp")
        let file = output.appending(path: "BuildCommit.swift").path
        let script = """
            commit=${DISCERN_BUILD_COMMIT:-$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
            if [ -z "${DISCERN_BUILD_COMMIT:-}" ] && [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null | head -c 1)" ]; then
                commit="$commit-modified"
            fi
            version=$(/bin/sh "$1/scripts/build-version.sh" "$1") && [ -n "$version" ] || version=0.0.0+unknown
            release=${version%%+*}
            lines=$(printf '%s\\n' "let buildCommit = \\"$commit\\"" "let buildVersion = \\"$version\\"" "let buildRelease = \\"$release\\"")
            mkdir -p "$(dirname "$2")"
            [ "$(cat "$2" 2>/dev/null)" = "$lines" ] || printf '%s\\n' "$lines" > "$2"
            """
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its commit and version",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "stamp", context.package.directoryURL.path, file],
                outputFilesDirectory: output)
        ]
    }
}
