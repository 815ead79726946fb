import Foundation
import Testing

/// One word for each thing (docs/design.md, "Glossary"): the words retired from what a person or
/// another program reads stay retired. "backend" became "service" (a service's caller is its
/// client), "give back" became "hand back", and what leaves discern when a batch ends is a
/// webhook ("notification" is PostgreSQL's NOTIFY alone: `NotificationListener`). The database
/// keeps its column and table names, and the `--backend` / `DISCERN_BACKENDS` and
/// `DISCERN_NOTIFY_*` aliases stay accepted.
@Suite("One word for each thing", .integrationTimeLimit)
struct OneWordTests {
    static let root = ChaosJobs.repository
    /// Retired words as they appear inside identifiers, any case.
    static var retired: Regex<Substring> { /(?i)backend|given_?back|give_?back|notification(?!listener)/ }

    /// Every line that declares something public (or package-wide) in Sources, and every name a
    /// statement gives its parameters and columns (the bundler makes them Swift names).
    @Test("no public Swift name, and no statement's generated name, says a retired word")
    func publicNames() throws {
        var found: [String] = []
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//").first.map(String.init) ?? ""
                guard code.contains(/\b(public|package|open)\s/) else { continue }
                // String literals (SQL naming a column, a log field kept for a reader) are not names.
                let names = code.replacing(/"[^"]*"/, with: "\"\"")
                if names.contains(Self.retired) { found.append("\(file.path.dropFirst(Self.root.path.count + 1)):\(number + 1): \(line)") }
            }
        }
        let queries = Self.root.appendingPathComponent("sql/queries")
        for name in try FileManager.default.contentsOfDirectory(atPath: queries.path).sorted() where name.hasSuffix(".sql") {
            let text = try String(contentsOf: queries.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("-- $") || line.hasPrefix("-- returns:") {
                if line.contains(Self.retired) { found.append("sql/queries/\(name): \(line)") }
            }
        }
        #expect(found.isEmpty, "retired words in public names:\n\(found.joined(separator: "\n"))")
    }

    /// Every command's help, the nested ones too: "backend" only as the `--backend` alias.
    @Test("no command's help says backend, but for the --backend alias")
    func helpText() async throws {
        var pending: [[String]] = [[]], found: [String] = []
        var seen = 0
        while let command = pending.popLast() {
            seen += 1
            let help = try await Subprocess.run(try CommandLineTests.discern, command + ["--help"], environment: ["COLUMNS": "200"])
            for line in help.split(separator: "\n") where line.contains(/(?i)backend/) && !line.contains("--backend <service>") {
                found.append("discern \(command.joined(separator: " ")) --help: \(line)")
            }
            guard let listed = help.range(of: "SUBCOMMANDS:\n") else { continue }
            for line in help[listed.upperBound...].split(separator: "\n") {
                guard let match = line.wholeMatch(of: #/  ([a-z][a-z-]*)(\s.*)?/#) else { continue }
                let name = String(match.1)
                if name != "help" { pending.append(command + [name]) }
            }
        }
        #expect(seen > 25, "only \(seen) commands' help was read")
        #expect(found.isEmpty, "help that says backend:\n\(found.joined(separator: "\n"))")
    }
}
