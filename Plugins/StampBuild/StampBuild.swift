import Foundation
import PackagePlugin

/// Stamps the binary with the commit it is built from (`BuildInfo.commit`): before every build,
/// a shell asks git for HEAD (and whether tracked files differ from it) and rewrites the
/// generated file only when that changed, so an unchanged commit rebuilds nothing.
/// `DISCERN_BUILD_COMMIT` names the commit where there is no git checkout (a source tarball).
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
            line="let buildCommit = \\"$commit\\""
            mkdir -p "$(dirname "$2")"
            [ "$(cat "$2" 2>/dev/null)" = "$line" ] || printf '%s\\n' "$line" > "$2"
            """
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "stamp", context.package.directoryURL.path, file],
                outputFilesDirectory: output)
        ]
    }
}
