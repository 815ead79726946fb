import Foundation
import Testing

/// The docs cannot go stale without a test saying so: every path the README, the pages under
/// docs/ and deploy/README.md name exists, every module (and test target, and build plugin) is
/// on the README's layout table and on the design's map, and the layout table names every
/// folder at the top and every part of sql/, so a row cannot outlive the tree it describes.
@Suite("Docs against the tree", .integrationTimeLimit)
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
        guard let start = readme.range(of: "## Layout"), let end = readme.range(of: "\nMore in", range: start.upperBound..<readme.endIndex) else {
            return ""
        }
        return String(readme[start.upperBound..<end.lowerBound])
    }

    /// docs/design.md's map section.
    static func map() throws -> String {
        let design = try read("docs/design.md")
        guard let start = design.range(of: "## The map"), let end = design.range(of: "\n## ", range: start.upperBound..<design.endIndex) else {
            return ""
        }
        return String(design[start.upperBound..<end.lowerBound])
    }

    static func names(_ text: String, _ word: String) -> Bool {
        text.range(of: "(?<![A-Za-z0-9_])\(word)(?![A-Za-z0-9_])", options: .regularExpression) != nil
    }

    /// The README, every page under docs/ and docs/decisions/, deploy/README.md. A path of another
    /// repository is written without ours's top folder (docs/services.md: the service's `api-reference.md`).
    static func documents() throws -> [String] {
        ["README.md", "deploy/README.md"] + (try docPages())
    }

    static func docPages() throws -> [String] {
        try ["docs", "docs/decisions"].flatMap { folder in
            try entries(folder).filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
        }
    }

    @Test("every path the README and the docs name exists (a placeholder such as NAME.sql: its folder)")
    func pathsExist() throws {
        for document in try Self.documents() {
            let text = try Self.read(document)
            // Not inside a word or another address (cloud.google.com/vision/docs/...).
            let pattern = try NSRegularExpression(
                pattern: "(?<![A-Za-z0-9_./-])(?:Sources|Tests|sql|scripts|bench|docs|deploy|Plugins|\\.ci)/[A-Za-z0-9_./*-]+")
            let found = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text) }
            let paths = found.map { range in
                // A sentence's full stop is not the path's.
                var path = text[range]
                while let last = path.last, ".,;:)".contains(last) { path = path.dropLast() }
                return String(path)
            }
            // Every page but a decision record points into the tree: the pattern still reads them.
            if !document.hasPrefix("docs/decisions/") { #expect(!paths.isEmpty, "\(document)") }
            for path in Set(paths) {
                let placeholder = path.split(separator: "/").contains { part in part.contains("*") || part.contains(/^[A-Z]{3,}/) }
                let checked = placeholder ? path.split(separator: "/").dropLast().joined(separator: "/") : path
                #expect(Self.exists(checked), "\(document) names \(path), which is not in the tree")
            }
        }
    }

    @Test(
        "every module under Sources/ and every test target is on the README's layout table and on docs/design.md's map; every build plugin on the table"
    )
    func modulesListed() throws {
        let layout = try Self.layout(), map = try Self.map()
        for (folder, drawn) in [("Sources", true), ("Tests", true), ("Plugins", false)] {
            for module in try Self.entries(folder) {
                #expect(Self.names(layout, module), "the README's layout table does not name \(folder)/\(module)")
                if drawn { #expect(Self.names(map, module), "docs/design.md's map does not name \(module)") }
            }
        }
    }

    @Test("the repository stands on its own: no source, test, script, SQL or doc cites a document outside it")
    func citesNothingOutside() throws {
        var citing: [String] = []
        for folder in ["Sources", "Tests", "scripts", "sql", "docs", "deploy", "bench", "Plugins"] {
            // Hidden folders (bench/.data, bench/.venv) hold generated data, not the repository's words.
            guard
                let walk = FileManager.default.enumerator(
                    at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil,
                    options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in walk
            where ["swift", "sql", "sh", "py", "md", "yml", "yaml", "service"].contains(url.pathExtension)
                && url.lastPathComponent != "DocsTests.swift"
            {
                let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
                if text.contains("contracts.md") || text.contains("../shared/") { citing.append(url.path) }
            }
        }
        for file in ["README.md", "CHANGELOG.md"] where (try Self.read(file)).contains("contracts.md") { citing.append(file) }
        #expect(citing.isEmpty, "these cite a document that is not in the repository: \(citing)")
    }

    /// Names in the docs that are other systems' words, not discern's: HTTP and SQL, S3's,
    /// Azure's and Image Discerner's error codes, headers, Kubernetes kinds, libpq, Swift.
    static let foreignNames: Set<String> = [
        "AccessDenied", "Authorization", "AuthorizationHeaderMalformed", "BadArgument", "Date", "ExecutionAlreadyExists", "ExpiredToken",
        "FaceNotFound", "Forwarded", "InvalidAccessKeyId", "InvalidImage", "InvalidImageSize", "InvalidObjectState", "InvalidToken", "Message",
        "Mutex", "NoSuchKey", "Origin", "PQexecParams", "PQprepare", "PermanentRedirect", "PersonGroupNotFound", "PersonGroupNotTrained",
        "PersonGroupTrainingNotFinished", "ReadOnlyMany", "RequestTimeTooSkewed", "ScaledObject", "Secure", "Sendable", "ServiceGroup",
        "SignatureDoesNotMatch", "SignatureProvided", "SlowDown", "StringToSign", "Synchronization", "UnsupportedFeature"
    ]

    @Test("every type, member and source file the docs name in backticks exists: a doc outlives no rename")
    func docsNameWhatExists() throws {
        var code = "", files = Set<String>()
        for folder in ["Sources", "Tests", "Plugins", "bench", "sql"] {
            guard
                let walk = FileManager.default.enumerator(
                    at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil,
                    options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in walk where url.pathExtension == "swift" {
                code += ((try? String(contentsOf: url, encoding: .utf8)) ?? "") + "\n"
                files.insert(url.lastPathComponent)
            }
        }
        let modules = Set((try Self.entries("Sources")) + (try Self.entries("Tests")))
        let alerts = try Self.read("deploy/prometheus/discern-alerts.yml")
        func declared(_ pattern: String) -> Set<String> {
            let regex = try! NSRegularExpression(pattern: pattern)
            return Set(
                regex.matches(in: code, range: NSRange(code.startIndex..., in: code)).compactMap {
                    Range($0.range(at: 1), in: code).map { String(code[$0]) }
                })
        }
        let types = declared(#"\b(?:struct|class|enum|actor|protocol|typealias|extension)\s+([A-Z]\w*)"#)
        let members = declared(#"\b(?:func|let|var|case|init)\s+`?([A-Za-z_]\w*)"#)
        let named = try NSRegularExpression(pattern: #"`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:\.[A-Za-z_]\w*)*)(?:\([^`]*\))?`"#)
        var missing: [String] = []
        for doc in try Self.docPages() + ["README.md", "CHANGELOG.md"] {
            let text = try Self.read(doc)
            for match in named.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let name = String(text[range]), parts = name.split(separator: ".").map(String.init)
                if name.hasSuffix(".swift") { if !files.contains(name) { missing.append("\(doc): \(name)") }; continue }
                guard !Self.foreignNames.contains(parts[0]), !alerts.contains("alert: \(parts[0])") else { continue }
                let known =
                    (types.contains(parts[0]) || modules.contains(parts[0]))
                    && parts.dropFirst().allSatisfy { members.contains($0) || types.contains($0) }
                if !known { missing.append("\(doc): \(name)") }
            }
        }
        #expect(missing.isEmpty, "the docs name what the code does not have (renamed or removed?):\n\(missing.joined(separator: "\n"))")
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

    @Test("while CHANGELOG.md has an [Unreleased] section, its newest release names its commit (a Commit: line)")
    func newestReleaseNamesItsCommit() throws {
        // scripts/build-version.sh takes every build for the newest release while its section names
        // no commit (the release being cut): left so after it, builds of later commits would too.
        let sections = try Self.read("CHANGELOG.md").components(separatedBy: "\n## ").dropFirst()
        guard sections.contains(where: { $0.hasPrefix("[Unreleased]") }),
            let newest = sections.first(where: { $0.range(of: #"^\[\d+\.\d+\.\d+\]"#, options: .regularExpression) != nil })
        else { return }
        let heading = newest.prefix(while: { $0 != "\n" })
        #expect(
            newest.range(of: #"(?m)^Commit: [0-9a-f]{7,40}\b"#, options: .regularExpression) != nil,
            "CHANGELOG.md has an [Unreleased] section, and its newest release (\(heading)) names no commit: add its Commit: line")
    }
}
