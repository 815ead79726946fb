import Foundation
import JobQueue
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// The operator's CLI, run as the built binary: job listing and control, JSON output, exit
/// statuses, and one clear line for the mistakes people make (docs/operations.md).
@Suite("Command line", .integrationTimeLimit)
struct CommandLineTests {
    static var discern: String { get throws { try WorkerProcess.binary.path } }

    @Test("jobs lists and shows dead jobs with their error history; retry and cancel act on a selection")
    func jobControl() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: (1...6).map { "/photos/night/img-\($0).jpg" }, batch: "night")
                try JobQueue.enqueue(connection, paths: ["/photos/other.jpg"], batch: "other")
            }
            // Three jobs died of a timeout, one of a rejected image, after two attempts each.
            try await database.execute(
                """
                UPDATE discern.jobs SET state = 'dead', attempts = 2, finished_at = now(),
                       error_kind = CASE WHEN id <= 3 THEN 'discerner_timeout' ELSE 'discerner_image_rejected' END,
                       last_error = 'the last try failed',
                       error_history = '[{"attempt": 1, "at": "2026-11-22T01:00:00Z", "kind": "discerner_timeout", "error": "no answer in 300 s"},
                                         {"attempt": 2, "at": "2026-11-22T01:05:00Z", "kind": "discerner_timeout", "error": "the last try failed"}]'
                WHERE id <= 4
                """)
            let db = ["--database-url", conninfo]

            let listed = try await Subprocess.run(Self.discern, ["jobs", "--state", "dead", "--format", "json"] + db)
            let dead = try #require(
                (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["items"] as? [[String: Any]], "\(listed)")
            #expect(dead.count == 4)
            #expect(dead.first?["id"] as? Int == 4 && dead.first?["batch"] as? String == "night" && dead.first?["attempts"] as? Int == 2)
            let table = try await Subprocess.run(Self.discern, ["jobs", "--kind", "discerner_timeout"] + db)
            #expect(table.contains("img-3.jpg") && table.contains("2/5") && !table.contains("img-4.jpg"), "\(table)")

            let sheet = try await Subprocess.run(Self.discern, ["jobs", "show", "2"] + db)
            #expect(
                sheet.contains("job 2: dead") && sheet.contains("errors (2):")
                    && sheet.contains("#1 2026-11-22T01:00:00Z  discerner_timeout: no answer in 300 s"),
                "\(sheet)")
            let missing = try await Subprocess.runWithStatus(Self.discern, ["jobs", "show", "999"] + db)
            #expect(missing.status == 64 && missing.output.contains("there is no job 999"), "\(missing.output)")

            let retried = try await Subprocess.run(Self.discern, ["retry", "--batch", "night", "--kind", "discerner_timeout"] + db)
            #expect(retried.contains("retried 3 job(s)"), "\(retried)")
            let states: [(id: Int, state: String, attempts: Int, errorHistoryLength: Int)] = try await database.rows(
                "SELECT id, state, attempts, jsonb_array_length(error_history) FROM discern.jobs WHERE id <= 4 ORDER BY id",
                as: Int.self, String.self, Int.self, Int.self)
            #expect(states.map(\.state) == ["available", "available", "available", "dead"])
            #expect(states.first?.attempts == 0 && states.first?.errorHistoryLength == 2, "attempts fresh, history kept")

            let cancelled = try await Subprocess.run(Self.discern, ["cancel", "--batch", "night"] + db)
            #expect(cancelled.contains("cancelled 5 job(s)") && cancelled.contains("left alone: 1 dead"), "\(cancelled)")
            let byId = try await Subprocess.run(Self.discern, ["retry", "5", "7"] + db)
            #expect(byId.contains("retried 1 job(s)"), "a cancelled job named by id comes back; job 7 was never cancelled: \(byId)")

            let nothing = try await Subprocess.runWithStatus(Self.discern, ["retry"] + db)
            #expect(nothing.status == 64 && nothing.output.contains("name job ids, or choose jobs with"), "\(nothing.output)")
            let wrongService = try await Subprocess.runWithStatus(Self.discern, ["cancel", "--backend", "vision"] + db)
            #expect(wrongService.status == 64 && wrongService.output.contains("'azure-face'"), "\(wrongService.output)")
        }
    }

    @Test("status and results speak JSON; results filter by batch")
    func jsonOutput() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { try JobQueue.enqueue($0, paths: ["/p/a.jpg", "/p/b.jpg"], batch: "night") }
            try await database.execute(
                """
                INSERT INTO discern.results (job_id, batch_id, image_path, backend, action, category, confidence, raw_response,
                    original_bytes, original_width, original_height, original_format, sent_bytes, sent_width, sent_height, sent_format,
                    passed_through, prepare_ms, analyze_ms)
                SELECT id, batch_id, image_path, 'discerner', 'analyze', 'vehicle:truck', 0.875, '{}', 1000, 10, 10, 'jpeg', 1000, 10, 10, 'jpeg',
                       true, 1, 2 FROM discern.jobs WHERE id = 1
                """)
            let db = ["--database-url", conninfo]
            let status = try await Subprocess.run(Self.discern, ["status", "--format", "json"] + db)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any], "\(status)")
            let states = try #require(document["states"] as? [[String: Any]])
            #expect(states.contains { $0["state"] as? String == "available" && $0["jobs"] as? Int == 2 })
            #expect(document["workers"] as? [Any] != nil && document["unserved"] as? [[String: Any]] != nil)

            let results = try await Subprocess.run(Self.discern, ["results", "--batch", "night", "--format", "json"] + db)
            let rows = try #require(
                (try JSONSerialization.jsonObject(with: Data(results.utf8)) as? [String: Any])?["items"] as? [[String: Any]], "\(results)")
            #expect(rows.count == 1 && rows.first?["category"] as? String == "vehicle:truck" && rows.first?["confidence"] as? Double == 0.875)
            #expect(rows.first?["raw_response"] == nil, "the raw answer stays out of listings")
            let otherBatch = try await Subprocess.run(Self.discern, ["results", "--batch", "day", "--format", "json"] + db)
            #expect(otherBatch.filter { !$0.isWhitespace } == #"{"items":[]}"#, "\(otherBatch)")
        }
    }

    @Test("an unmigrated database or a wrong URL: one line, a hint, exit 69, no retries")
    func databaseMistakes() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let status = try await Subprocess.runWithStatus(Self.discern, ["status", "--database-url", conninfo])
            #expect(status.status == 69 && status.output.contains("run `discern migrate`") && !status.output.contains("Error:"), "\(status.output)")
            let work = try await Subprocess.runWithStatus(
                Self.discern,
                [
                    "work", "--drain", "--database-url", conninfo, "--discerner-url", "http://127.0.0.1:9",
                    "--path-root", "/tmp"
                ])
            #expect(work.status == 69 && work.output.contains("no discern schema"), "\(work.output)")
        }
        let unreachable = "postgresql://discern@127.0.0.1:1/discern"
        let work = try await Subprocess.runWithStatus(
            Self.discern,
            [
                "work", "--database-url", unreachable, "--discerner-url", "http://127.0.0.1:9",
                "--path-root", "/tmp"
            ])
        #expect(work.status == 69 && work.output.contains("check --database-url") && !work.output.contains("retrying"), "\(work.output)")
        #expect(work.output.split(separator: "\n").count == 2, "one error line and one hint: \(work.output)")
    }

    @Test("usage mistakes exit 64 with a message, never a raw PostgreSQL error")
    func usageMistakes() async throws {
        for arguments in [
            ["results", "--limit=-5"], ["status", "--watch", "--interval", "0"], ["jobs", "--state", "lost"],
            ["results", "--format", "yaml"], ["work", "--config", "/nonexistent/discern.conf"]
        ] {
            let run = try await Subprocess.runWithStatus(Self.discern, arguments + ["--database-url", "postgresql://127.0.0.1:1/x"])
            #expect(run.status == 64, "\(arguments): \(run.output)")
            #expect(!run.output.contains("SQLSTATE") && !run.output.contains("connection"), "\(arguments): \(run.output)")
        }
        // What libvips' setup reads on its own is checked as every other setting is.
        for (name, value) in [("DISCERN_VIPS_CONCURRENCY", "abc"), ("DISCERN_VIPS_CONCURRENCY", "0"), ("DISCERN_VIPS_ORC", "yes")] {
            let run = try await Subprocess.runWithStatus(Self.discern, ["version"], environment: [name: value])
            #expect(run.status == 64 && run.output.contains(name) && run.output.split(separator: "\n").count == 1, "\(name)=\(value): \(run.output)")
        }
        let help = try await Subprocess.run(Self.discern, ["enqueue", "--help"])
        #expect(
            help.contains("--config <file>") && help.contains("(values: discerner, ooto,")
                && help.contains("azure-face, landmark, unissey; default: discerner)"), "\(help)")
        let completion = try await Subprocess.run(Self.discern, ["--generate-completion-script", "bash"])
        #expect(completion.contains("azure-face") && completion.contains("retry"), "completions offer backends and commands")
    }

    @Test("the README shows the current `discern --help`")
    func readmeHelpIsCurrent() async throws {
        let help = try await Subprocess.run(Self.discern, ["--help"], environment: ["COLUMNS": "100"])
        let readme = try String(contentsOf: ChaosJobs.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- discern-help:start -->\n```text\n"))
        let end = try #require(readme.range(of: "\n```\n<!-- discern-help:end -->"))
        let shown = String(readme[start.upperBound..<end.lowerBound])
        #expect(
            shown == help.trimmingCharacters(in: .newlines),
            "README.md is stale: replace its block with `COLUMNS=100 discern --help`")
    }

    @Test("enqueue: --exclude '*/thumbs/*' leaves out a top-level thumbs/ too; a non-image named explicitly is refused")
    func enqueueSelection() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                for path in ["a.jpg", "thumbs/t.jpg", "day/thumbs/u.jpg", "day/b.jpg"] {
                    let file = folder.appendingPathComponent(path)
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try SampleImages.photo(width: 64, height: 48, seed: path.count).write(to: file)
                }
                let db = ["--database-url", conninfo]
                let enqueued = try await Subprocess.run(Self.discern, ["enqueue", folder.path, "--exclude", "*/thumbs/*", "--no-dedupe"] + db)
                #expect(enqueued.contains("enqueued 2 job(s)"), "\(enqueued)")
                let paths = try await Database(conninfo: conninfo).rows("SELECT image_path FROM discern.jobs ORDER BY image_path", as: String.self)
                #expect(paths.map { URL(fileURLWithPath: $0).lastPathComponent } == ["a.jpg", "b.jpg"])

                let notes = try folder.write(Data("shift notes".utf8), as: "notes.jpg")
                let refused = try await Subprocess.runWithStatus(Self.discern, ["enqueue", notes] + db)
                #expect(refused.status == 64 && refused.output.contains("is not an image discern can send"), "\(refused.output)")
            }
        }
    }

    @Test("work --drain exits 1 when a job died, 0 when all succeeded")
    func drainExitStatus() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let good = try folder.write(try SampleImages.photo(width: 320, height: 240, seed: 7), as: "good.jpg")
                let broken = try folder.write(Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x41, count: 2000), as: "broken.jpg")
                try await TestSimulator.with { simulator in
                    let work = [
                        "work", "--drain", "--database-url", conninfo, "--discerner-url", simulator.baseURL, "--path-root", folder.path,
                        "--log-level", "error"
                    ]
                    try await Database(conninfo: conninfo).withConnection { try JobQueue.enqueue($0, paths: [good]) }
                    let clean = try await Subprocess.runWithStatus(Self.discern, work)
                    #expect(clean.status == 0 && clean.output.contains("succeeded: 1  dead: 0"), "\(clean.output)")
                    try await Database(conninfo: conninfo).withConnection { try JobQueue.enqueue($0, paths: [broken]) }
                    let failed = try await Subprocess.runWithStatus(Self.discern, work)
                    #expect(failed.status == 1 && failed.output.contains("dead: 1"), "\(failed.output)")
                }
            }
        }
    }
}
