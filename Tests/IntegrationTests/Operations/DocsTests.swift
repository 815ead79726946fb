import Foundation
import Testing

/// The docs cannot go stale without a test saying so (issue 44): every path the README and
/// docs/design.md name exists, every module is on the README's layout table and on the design's
/// map, and the layout table names every folder at the top and every part of sql/ (its row said
/// `sql/migrations` was the schema long after sql/functions, sql/views and sql/schema.sql were).
@Suite("Docs against the tree")
struct DocsTests {
    static let root = ChaosJobs.repository
    static func read(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) }
    static func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The README's layout table, from its heading to the next paragraph.
    static func layout() throws -> String {
        let readme = try read("README.md")
        guard let start = readme.range(of: "## Layout"), let end = readme.range(of: "\nMore in", range: start.upperBound..<readme.endIndex) else { return "" }
        return String(readme[start.upperBound..<end.lowerBound])
    }

    /// docs/design.md's map section.
    static func map() throws -> String {
        let design = try read("docs/design.md")
        guard let start = design.range(of: "## The map"), let end = design.range(of: "\n## ", range: start.upperBound..<design.endIndex) else { return "" }
        return String(design[start.upperBound..<end.lowerBound])
    }

    static func names(_ text: String, _ word: String) -> Bool {
        text.range(of: "(?<![A-Za-z0-9_])\(word)(?![A-Za-z0-9_])", options: .regularExpression) != nil
    }

    @Test("every path the README and docs/design.md name exists (a placeholder such as NAME.sql: its folder)")
    func pathsExist() throws {
        for document in ["README.md", "docs/design.md"] {
            let text = try Self.read(document)
            let paths = text.matches(of: /(?:Sources|Tests|sql|scripts|bench|docs|deploy|Plugins|\.ci)\/[A-Za-z0-9_.\/*-]+/).map { match in
                // A sentence's full stop is not the path's.
                var path = Substring(match.output)
                while let last = path.last, ".,;:)".contains(last) { path = path.dropLast() }
                return String(path)
            }
            #expect(!paths.isEmpty)
            for path in Set(paths) {
                let placeholder = path.split(separator: "/").contains { part in part.contains("*") || part.contains(/^[A-Z]{3,}/) }
                let checked = placeholder ? path.split(separator: "/").dropLast().joined(separator: "/") : path
                #expect(Self.exists(checked), "\(document) names \(path), which is not in the tree")
            }
        }
    }

    @Test("every module under Sources/ is on the README's layout table and on docs/design.md's map")
    func modulesListed() throws {
        let layout = try Self.layout(), map = try Self.map()
        for module in try Self.entries("Sources") {
            #expect(Self.names(layout, module), "the README's layout table does not name Sources/\(module)")
            #expect(Self.names(map, module), "docs/design.md's map does not name \(module)")
        }
    }

    @Test("the layout table names every folder at the top and every part of sql/")
    func layoutCoversTheTree() throws {
        let layout = try Self.layout()
        let top = try Self.entries("").filter { name in
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(name).path, isDirectory: &folder) && folder.boolValue
        }
        for folder in top {
            #expect(layout.contains("`\(folder)/") || layout.contains("`\(folder)`"), "the README's layout table does not name \(folder)/")
        }
        for part in try Self.entries("sql") {
            #expect(Self.names(layout, part.replacingOccurrences(of: ".", with: "\\.")), "the README's layout table does not name sql/\(part)")
        }
    }
}
