import Foundation
import PackagePlugin

/// Compiles every .sql file under the SQLSchema target's folder (sql/) into the binary, so
/// `discern migrate` needs nothing beside the executable, and the list of files is the folder
/// itself: a new migration or function is a new file, nothing else to name.
@main
struct BundleSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = target.directoryURL
        var files: [URL] = []
        if let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) {
            for case let url as URL in walk where url.pathExtension == "sql" { files.append(url) }
        }
        files.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "BundledSQL.swift")
        let relative = files.map { String($0.path.dropFirst(root.path.count + 1)) }
        return [
            .buildCommand(
                displayName: "Bundling \(files.count) SQL files",
                executable: try context.tool(named: "SQLBundler").url,
                arguments: [root.path, output.path] + relative,
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
