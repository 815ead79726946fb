import Foundation
import Testing
import SampleImages
import TestFixtures
import JobQueue
import Postgres

/// Shared set-up for the chaos tests: many small jobs over a handful of distinct images.
enum ChaosJobs {
    static func enqueue(_ count: Int, into conninfo: String, folder: URL, batch: String = "chaos") async throws {
        let images = try (1...25).map { try folder.write(SampleImages.photo(width: 96, height: 64, seed: $0), as: "img-\($0).jpg") }
        let paths = (0..<count).map { images[$0 % images.count] }
        try await Database(conninfo: conninfo, name: "test-enqueue").withConnection { connection in
            try JobQueue.enqueue(connection, paths: paths, batch: batch)
            // The contract's limits (50 analyses a minute) would stretch a chaos run to half an hour.
            try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
        }
    }

    /// The repository root, for its scripts.
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Every job that did not succeed, with what happened to it: for a failure message that
    /// explains itself.
    static func unfinishedJobs(_ conninfo: String) async throws -> String {
        let rows = try await Database(conninfo: conninfo, name: "test-report").rows(
            """
            SELECT id, state, attempts, shared_crashes, solo_crashes, error_kind, last_error, error_history::text AS history
            FROM discern.jobs WHERE state <> 'succeeded' ORDER BY id LIMIT 20
            """, as: Int.self, String.self, Int.self, Int.self, Int.self, String?.self, String?.self, String.self)
        return rows.map { id, state, attempts, sharedCrashes, soloCrashes, kind, lastError, history in
            "job \(id) \(state) after \(attempts) attempts "
                + "(\(sharedCrashes) shared, \(soloCrashes) solo crashes): "
                + "\(kind ?? "-"): \(lastError ?? "-")\n  history: \(history)"
        }.joined(separator: "\n")
    }

    /// What a chaos test says when an expectation fails: the facts, and where the worker logs
    /// were kept. The logs are copied only when the text is read, which a passing `#expect`
    /// never does (built eagerly, it would keep every passing run's logs too).
    struct FailureStory: CustomStringConvertible {
        let facts: String
        let folder: URL
        let test: String
        var description: String { "\(facts)\nlogs: \(ChaosJobs.keepLogs(of: folder, test: test))" }
    }

    /// Copies the worker logs of a test out of its temporary folder, which is removed when the
    /// test ends, into /tmp/discern-test-logs; returns where they are.
    static func keepLogs(of folder: URL, test: String) -> String {
        let kept = URL(fileURLWithPath: "/tmp/discern-test-logs").appendingPathComponent("\(test)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".log") {
            try? FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: kept.appendingPathComponent(name))
        }
        return kept.path
    }

    /// Waits until the jobs' count of finished (succeeded or dead) reaches `total`, looking at
    /// each announcement. A drain's length is the machine's business (beside sixty tests on 2
    /// cores it can take three times as long): what a test asserts is that it ends, within the
    /// test's time limit (or its own deadline, which names the test's line).
    static func finished(_ conninfo: String, total: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bool {
        try await Announcements.until(conninfo, sourceLocation: sourceLocation) {
            let census = try await TestDatabase.census(conninfo)
            return census.succeeded + census.dead >= total
        }
    }
}
