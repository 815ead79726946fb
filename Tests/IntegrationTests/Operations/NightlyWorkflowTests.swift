import Foundation
import SampleImages
import Postgres
import Simulator
import TestFixtures
import Testing

/// The nightly workflow as operations run it, with the real `discern` binary: enqueue a dated
/// folder tree (globs, content dedupe), enqueue it again, drain, report, prune, enqueue again.
@Suite("Nightly workflow", .integrationTimeLimit)
struct NightlyWorkflowTests {
    @Test("enqueue twice (the second adds nothing), drain, report; after pruning, analysed files stay skipped")
    func nightly() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let root = folder.appendingPathComponent("photos")
                var distinct = 0
                for (day, camera, count) in [("2026-11-21", "cam-1", 4), ("2026-11-22", "cam-1", 3), ("2026-11-22", "cam-2", 3)] {
                    let dir = root.appendingPathComponent(day).appendingPathComponent(camera)
                    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                    for index in 0..<count {
                        distinct += 1
                        try SampleImages.photo(width: 640, height: 480, seed: 100 + distinct).write(
                            to: dir.appendingPathComponent("img-\(index).jpg"))
                    }
                }
                // Thumbnails to leave out, a file that is not an image, and a copy under another name.
                let thumbs = root.appendingPathComponent("2026-11-22/cam-2/thumbs")
                try FileManager.default.createDirectory(at: thumbs, withIntermediateDirectories: true)
                try SampleImages.photo(width: 64, height: 48, seed: 999).write(to: thumbs.appendingPathComponent("t.jpg"))
                try Data("notes".utf8).write(to: root.appendingPathComponent("2026-11-22/readme.txt"))
                try FileManager.default.copyItem(
                    at: root.appendingPathComponent("2026-11-21/cam-1/img-0.jpg"),
                    to: root.appendingPathComponent("2026-11-22/cam-1/copy-of-img-0.jpg"))

                let discern = try WorkerProcess.binary.path
                let database = ["--database-url", conninfo]
                let enqueue = ["enqueue", root.path, "--batch", "nightly-2026-11-22", "--exclude", "*/thumbs/*"] + database
                let first = try await Subprocess.run(discern, enqueue)
                #expect(first.contains("enqueued \(distinct) job(s)"), "\(first)")
                let second = try await Subprocess.run(discern, enqueue)
                #expect(second.contains("enqueued 0 job(s)") && second.contains("skipped \(distinct + 1)"), "\(second)")

                let onlyOneDay = try await Subprocess.run(
                    discern,
                    [
                        "enqueue", root.path, "--include", "2026-11-21/*", "--no-dedupe",
                        "--batch", "rerun"
                    ] + database)
                #expect(onlyOneDay.contains("enqueued 4 job(s)"), "--include picks one day's folder: \(onlyOneDay)")

                try await TestSimulator.with { simulator in
                    let drained = try await Subprocess.run(
                        discern,
                        [
                            "work", "--drain", "--discerner-url", simulator.baseURL, "--path-root", folder.path,
                            "--log-level", "warning"
                        ] + database)
                    #expect(drained.contains("succeeded: \(distinct + 4)"), "\(drained)")
                }

                let markdown = try await Subprocess.run(discern, ["report", "--batch", "nightly-2026-11-22"] + database)
                #expect(markdown.contains("# Batch nightly-2026-11-22"))
                #expect(markdown.contains("| discerner | \(distinct) | \(distinct) | 0 |"), "\(markdown)")
                let jsonFile = folder.appendingPathComponent("report.json")
                _ = try await Subprocess.run(discern, ["report", "--batch", "nightly-2026-11-22", "--format", "json", "-o", jsonFile.path] + database)
                let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: jsonFile)) as? [String: Any])
                let services = try #require(report["services"] as? [[String: Any]])
                #expect(services.first?["succeeded"] as? Int == distinct)
                #expect((services.first?["api_calls"] as? Int ?? 0) >= 2 * distinct)
                #expect(report["jobs_per_minute"] != nil)

                // Finished jobs pruned: their results still keep the files from coming back.
                try await Database(conninfo: conninfo).execute("UPDATE discern.jobs SET finished_at = now() - interval '40 days'")
                _ = try await Subprocess.run(discern, ["prune", "--days", "30"] + database)
                #expect(try await Database(conninfo: conninfo).value("SELECT count(*) FROM discern.jobs", as: Int.self) == 0)
                let third = try await Subprocess.run(discern, enqueue)
                #expect(third.contains("enqueued 0 job(s)"), "\(third)")
                let afterPrune = try await Subprocess.run(discern, ["report", "--batch", "nightly-2026-11-22"] + database)
                #expect(afterPrune.contains("| discerner | \(distinct) | \(distinct) |"), "results outlive pruned jobs: \(afterPrune)")
            }
        }
    }
}
