import Foundation
import Postgres
import Testing

/// One read model, every rendering: each CLI command's `--format json` is the console's `/api/`
/// twin, figure for figure, and its table shows those figures.
@Suite("Read model", .integrationTimeLimit)
struct ReadModelTests {
    @Test("status, jobs, jobs show, batches, report, results and quality print what /api/ answers on the same database")
    func cliMatchesAPI() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, _) = try await ConsoleTests.seed(conninfo, folder)
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let discern = try WorkerProcess.binary.path
                let db = ["--database-url", conninfo]
                // A command beside its twin; `generated_at` is the only figure allowed to differ.
                let pairs: [([String], String)] = [
                    (["status"], "/api/overview"),
                    (["jobs"], "/api/jobs"),
                    (["jobs", "--state", "dead", "--batch", "night-2026-11-22"], "/api/jobs?state=dead&batch=night-2026-11-22"),
                    (["jobs", "show", "\(fixable)"], "/api/jobs/\(fixable)"),
                    (["batches"], "/api/batches"),
                    (["report", "--batch", "night-2026-11-22"], "/api/report?batch=night-2026-11-22"),
                    (["results", "--limit", "48"], "/api/results"),
                    (["results", "--service", "discerner", "--limit", "3"], "/api/results?service=discerner&limit=3"),
                    // The filter's name before 0.11, in bookmarks and scripts: still read.
                    (["results", "--service", "discerner", "--limit", "3"], "/api/results?backend=discerner&limit=3"),
                    (["quality"], "/api/quality"),
                    (
                        ["quality", "--field", "operator", "--target", "0.1", "--service", "discerner"],
                        "/api/quality?field=operator&target=0.1&service=discerner"
                    )
                ]
                for (command, path) in pairs {
                    // Some figures count from the minute of `now` (succeeded in the last minute,
                    // the last 12 hours): a pair read across a minute's turn is read again.
                    for reading in 1...5 {
                        let printed = try await Subprocess.run(discern, command + ["--format", "json"] + db)
                        let answered = await RawHTTP.get(port: port, path: path)
                        #expect(answered.status == 200, "\(path): \(answered.body)")
                        let cli = try Self.object(printed), api = try Self.object(answered.body)
                        if cli.isEqual(api) { break }
                        if reading < 5, Self.minute(printed) != Self.minute(answered.body) { continue }
                        Issue.record("\(command) differs from \(path):\n\(printed)\n\(answered.body)")
                        break
                    }
                }

                // The tables show the same figures: the dead job of the batch, its tries, the batch's counts.
                let overview = try #require(try Self.object(await RawHTTP.get(port: port, path: "/api/overview").body) as? [String: Any])
                let states = try #require(overview["states"] as? [[String: Any]])
                let status = try await Subprocess.run(discern, ["status"] + db)
                for state in states {
                    let line = "\(state["service"] ?? "")  \(state["state"] ?? "")"
                    #expect(
                        status.split(separator: "\n").contains { $0.hasPrefix(line) && $0.hasSuffix(" \(state["jobs"] ?? "")") },
                        "\(line) \(state["jobs"] ?? ""): \(status)")
                }
                let dead = try await Subprocess.run(discern, ["jobs", "--state", "dead"] + db)
                #expect(dead.contains("\(fixable)") && dead.contains("late.jpg") && dead.contains("5/5") && dead.contains("timeout"), "\(dead)")
                let batches = try await Subprocess.run(discern, ["batches"] + db)
                let batch = try #require((try Self.object(await RawHTTP.get(port: port, path: "/api/batches").body) as? [[String: Any]])?.first)
                let row = batches.split(separator: "\n").first { $0.hasPrefix("night-2026-11-22 ") }?.split(separator: " ").map(String.init) ?? []
                // name, created (date and time), then jobs, succeeded, dead.
                #expect(
                    row.count > 5 && row[3...5] == ["\(batch["jobs"] ?? "")", "\(batch["succeeded"] ?? "")", "\(batch["dead"] ?? "")"], "\(batches)")
            }
        }
    }

    /// The minute a document was made in (`generated_at` to the minute), nil without one.
    static func minute(_ text: String) -> Substring? {
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        return ((parsed as? [String: Any])?["generated_at"] as? String)?.prefix(16)
    }

    /// A JSON document without the moment it was made.
    static func object(_ text: String) throws -> NSObject {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        guard var document = parsed as? [String: Any] else { return parsed as? NSObject ?? NSNull() }
        document["generated_at"] = nil
        return document as NSDictionary
    }
}
