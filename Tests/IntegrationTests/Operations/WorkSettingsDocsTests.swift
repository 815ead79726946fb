import Foundation
import Testing

/// `discern work --help` and docs/configuration.md's worker table say the same (issue 44): every
/// flag of the one is a row of the other, and a row naming both a variable and a flag has a flag
/// whose help names that variable and, where the row's default is a number, that default. The
/// worker's settings are written in both places; this is what keeps them from drifting apart.
@Suite("Worker settings: help and docs")
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
            let text = try #require(help[flag == "--no-progress" ? "--progress" : flag] ?? help[flag],
                                    "docs/configuration.md names \(flag), which discern work does not take")
            if let variable = row.variable {
                #expect(text.contains("$\(variable)"), "\(flag)'s help does not name \(variable): \(text)")
            }
            if Double(row.defaultValue) != nil {
                #expect(text.contains("else \(row.defaultValue).") || text.contains("Default: \(row.defaultValue).") || text.contains("(default: \(row.defaultValue))"),
                        "\(flag): docs say the default is \(row.defaultValue); its help says: \(text)")
            }
        }
    }
}
