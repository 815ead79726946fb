import Foundation
import Testing

/// `discern work --help` and docs/configuration.md's worker table say the same: every
/// flag of the one is a row of the other, and a row naming both a variable and a flag has a flag
/// whose help names that variable and, where the row's default is a number, that default. A
/// setting is declared once (docs/design.md, "Settings") and documented once; this keeps the two
/// from drifting apart.
@Suite("Worker settings: help and docs", .integrationTimeLimit)
struct WorkSettingsDocsTests {
    struct Row { let variable: String?; let flag: String?; let defaultValue: String }

    /// docs/configuration.md's table under "## The worker".
    static func rows() throws -> [Row] {
        let text = try DocsTests.read("docs/configuration.md")
        let start = try #require(text.range(of: "## The worker"))
        let end = text.range(of: "\n#", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
        return text[start.upperBound..<end].split(separator: "\n").filter { $0.hasPrefix("| ") || $0.hasPrefix("| |") }.compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1] != "name", !cells[1].hasPrefix("---") else { return nil }
            func code(_ cell: String) -> String? { cell.firstMatch(of: /`([^`]+)`/).map { String($0.1) } }
            return Row(variable: code(cells[1]), flag: code(cells[2]), defaultValue: cells[3])
        }
    }

    /// Each flag of `discern work --help` with the text that describes it.
    static func help() async throws -> [String: String] {
        let text = try await Subprocess.run(try WorkerProcess.binary.path, ["work", "--help"], environment: ["COLUMNS": "200"])
        var flags: [String: String] = [:], current: String?
        for line in text.split(separator: "\n") {
            if let flag = line.firstMatch(of: /^  (--[a-z0-9-]+)/) {
                current = String(flag.1)
                flags[current!] = String(line)
            } else if let current, line.hasPrefix("      ") {
                flags[current, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                current = nil
            }
        }
        return flags
    }

    @Test("every flag of discern work --help is in docs/configuration.md, and every row's flag, variable and numeric default are in its help")
    func agree() async throws {
        let rows = try Self.rows(), help = try await Self.help()
        #expect(rows.count > 10 && help.count > 10, "\(rows.count) rows, \(help.count) flags")
        let documented = Set(rows.compactMap(\.flag).map { $0.components(separatedBy: " ")[0] })
        // Common to every command, documented with the database and the configuration file.
        let elsewhere: Set = ["--help", "--version", "--database-url", "--config", "--discerner-url", "--progress"]
        for flag in help.keys.sorted() where !elsewhere.contains(flag) {
            #expect(documented.contains(flag), "discern work \(flag) is not in docs/configuration.md's worker table")
        }
        for row in rows {
            guard let flag = row.flag?.components(separatedBy: " ")[0], flag.hasPrefix("--") else { continue }
            let text = try #require(
                help[flag == "--no-progress" ? "--progress" : flag] ?? help[flag],
                "docs/configuration.md names \(flag), which discern work does not take")
            if let variable = row.variable {
                #expect(text.contains("$\(variable)"), "\(flag)'s help does not name \(variable): \(text)")
            }
            if Double(row.defaultValue) != nil {
                #expect(
                    text.contains("else \(row.defaultValue).") || text.contains("Default: \(row.defaultValue).")
                        || text.contains("(default: \(row.defaultValue))"),
                    "\(flag): docs say the default is \(row.defaultValue); its help says: \(text)")
            }
        }
    }

    @Test("each setting reaches the worker from its flag, else its variable, else the --config file, else its default")
    func settingsReachTheWorker() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let file = folder.appendingPathComponent("worker.conf")
                try "DISCERN_LEASE_SECONDS=12\nDISCERN_CONCURRENCY=99\n".write(to: file, atomically: true, encoding: .utf8)
                let (status, output) = try await Subprocess.runWithStatus(
                    try WorkerProcess.binary.path,
                    [
                        "work", "--drain", "--database-url", conninfo, "--discerner-url", "http://127.0.0.1:9", "--path-root", folder.path,
                        "--config", file.path, "--concurrency", "3", "--log-level", "info", "--no-progress"
                    ],
                    environment: ["DISCERN_PREPARE_THREADS": "1", "DISCERN_MAX_MB_IN_FLIGHT": "77", "DISCERN_CONCURRENCY": "98"])
                #expect(status == 0, "\(output)")
                let ready = try #require(output.split(separator: "\n").first { $0.contains("worker ready") }, "\(output)")
                // The flag wins over the variable and the file; the variable over the file.
                #expect(ready.contains("concurrency=3 "), "\(ready)")
                #expect(ready.contains("prepare_threads=1 "), "\(ready)")
                #expect(ready.contains("lease_seconds=12.0 "), "\(ready)")
                let budget = try #require(output.split(separator: "\n").first { $0.contains("memory budget") }, "\(output)")
                #expect(budget.contains("max_mb_in_flight=77") && budget.contains("from=DISCERN_MAX_MB_IN_FLIGHT"), "\(budget)")
            }
        }
    }
}
