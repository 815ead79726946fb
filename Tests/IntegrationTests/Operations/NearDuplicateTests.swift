import Foundation
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// A quota spent on photos already seen is spent twice: near-duplicates go last.
@Suite("Near-duplicates", .integrationTimeLimit)
struct NearDuplicateTests {
    @Test(
        "planted copies (resized, recompressed, 4 % cropped) wait behind every distinct photo, none of which is taken for a copy; the report counts the calls saved"
    )
    func nearDuplicatesGoLast() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                // Eight distinct photos; copies of three of them, named to be found after them.
                var copies: [String] = []
                for seed in 1...8 {
                    let original = try SampleImages.photo(width: 1200, height: 900, seed: seed)
                    _ = try folder.write(original, as: "a-photo-\(seed).jpg")
                    guard seed <= 3 else { continue }
                    copies += [
                        try folder.write(try SampleImages.photo(width: 600, height: 450, seed: seed), as: "b-resized-\(seed).jpg"),
                        try folder.write(try SampleImages.photo(width: 1200, height: 900, seed: seed, quality: 45), as: "b-recompressed-\(seed).jpg"),
                        try folder.write(try ImageFixtures.cropped(original, by: 0.04), as: "b-cropped-\(seed).jpg")
                    ]
                }
                let binary = try WorkerProcess.binary.path
                let enqueued = try await Subprocess.run(
                    binary,
                    [
                        "enqueue", folder.path, "--database-url", conninfo, "--batch", "planted",
                        "--near-duplicates", "last", "--path-root", folder.path
                    ])
                #expect(enqueued.contains("enqueued 17 job(s)") && enqueued.contains("9 near-duplicate(s) wait behind the rest"), "\(enqueued)")
                let database = Database(conninfo: conninfo)
                let marked = try await database.rows(
                    "SELECT image_path, near_duplicate_of, priority FROM discern.jobs ORDER BY image_path", as: String.self, String?.self, Int.self)
                for (imagePath, nearDuplicateOf, priority) in marked {
                    let name = URL(fileURLWithPath: imagePath).lastPathComponent
                    let of = nearDuplicateOf.map { URL(fileURLWithPath: $0).lastPathComponent }
                    if name.hasPrefix("a-photo") {
                        #expect(of == nil, "\(name), a distinct photo, was taken for a copy of \(of ?? "")")
                    } else {
                        let seed = name.split(separator: "-").last?.split(separator: ".").first.map(String.init) ?? "?"
                        #expect(of == "a-photo-\(seed).jpg" && priority == 32767, "\(name) -> \(of ?? "none")")
                    }
                }

                // One call at a time: every distinct photo is analysed before any copy.
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--concurrency", "1", "--drain"])
                    defer { worker.kill() }
                    await worker.expectExit()
                }
                let order: [(first: Bool, n: Int)] = try await database.rows(
                    """
                    SELECT bool_and(o.finished_at <= (SELECT min(d.finished_at) FROM discern.jobs d WHERE d.near_duplicate_of IS NOT NULL)) AS first,
                           count(*) FILTER (WHERE o.state = 'succeeded') AS n
                    FROM discern.jobs o WHERE o.near_duplicate_of IS NULL
                    """,
                    as: Bool.self, Int.self
                )
                let first = order.first?.first, analysed = order.first?.n
                #expect(first == true && analysed == 8, "the distinct photos finished first")

                // The next night the copies never get their turn (the window closed): the report says what that saved.
                _ = try await Subprocess.run(
                    binary,
                    [
                        "enqueue", folder.path, "--database-url", conninfo, "--batch", "planted-2",
                        "--near-duplicates", "last", "--no-dedupe", "--path-root", folder.path
                    ])
                try await database.execute(
                    """
                    SELECT discern.cancel(ARRAY(SELECT j.id FROM discern.jobs j JOIN discern.batches b ON b.id = j.batch_id
                                                WHERE b.name = 'planted-2' AND j.near_duplicate_of IS NOT NULL))
                    """)
                let report = try await Subprocess.run(binary, ["report", "--batch", "planted-2", "--database-url", conninfo])
                #expect(
                    report.contains("Near-duplicates put last: 9; not analysed: 9,") && report.contains("call(s) saved"), "\(report.suffix(1200))")
                #expect(!report.contains(" 0 call(s) saved"), "\(report.suffix(600))")
            }
        }
    }
}
