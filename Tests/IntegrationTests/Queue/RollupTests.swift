import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

/// The roll-ups must say exactly what the tables say, whether or not a
/// roll-up ran, whatever happened in between: completions, deaths, retries, deletes, and
/// transactions still open while a roll-up runs.
@Suite("Roll-ups", .integrationTimeLimit)
struct RollupTests {
    /// Every figure a view derives from a roll-up, next to the same figure counted from the tables.
    static let comparisons: [(what: String, view: SQL, truth: SQL)] = [
        (
            "jobs by backend and state",
            "SELECT backend, state, jobs FROM discern.queue_depth ORDER BY 1, 2",
            "SELECT backend, state, count(*) AS jobs FROM discern.jobs GROUP BY 1, 2 ORDER BY 1, 2"
        ),
        (
            "results per batch",
            "SELECT batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes, passed_through FROM discern.results_per_batch ORDER BY 1, 2, 3",
            """
            SELECT batch_id, backend, coalesce(outcome, 'unknown') AS outcome, count(*) AS results, sum(api_calls) AS api_calls,
                   sum(original_bytes) AS original_bytes, sum(sent_bytes) AS sent_bytes, count(*) FILTER (WHERE passed_through) AS passed_through
            FROM discern.results WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            """
        ),
        (
            "results per minute",
            "SELECT minute, backend, results, original_bytes, sent_bytes, round(analyze_ms_sum) AS ms FROM discern.results_per_minute ORDER BY 1, 2",
            """
            SELECT date_trunc('minute', created_at) AS minute, backend, count(*) AS results, sum(original_bytes) AS original_bytes,
                   sum(sent_bytes) AS sent_bytes, round(sum(analyze_ms)) AS ms
            FROM discern.results GROUP BY 1, 2 ORDER BY 1, 2
            """
        ),
        (
            "results per hour by category and operator",
            "SELECT hour, category, operator, results FROM discern.results_per_hour ORDER BY 1, 2, 3",
            "SELECT date_trunc('hour', created_at) AS hour, category, operator, count(*) AS results FROM discern.results GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        ),
        (
            "outcomes by backend",
            "SELECT backend, outcome, results, round(avg_confidence::numeric, 6) AS c FROM discern.outcomes_by_backend ORDER BY 1, 2",
            "SELECT backend, coalesce(outcome, 'unknown') AS outcome, count(*) AS results, round(avg(confidence)::numeric, 6) AS c FROM discern.results GROUP BY 1, 2 ORDER BY 1, 2"
        ),
        (
            "results by confidence band and day",
            "SELECT day, backend, band, results FROM discern.result_bands ORDER BY 1, 2, 3",
            "SELECT (created_at AT TIME ZONE 'UTC')::date AS day, backend, CASE WHEN confidence IS NULL THEN -1 ELSE least(floor(confidence * 10), 9)::smallint END AS band, count(*) AS results FROM discern.results GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        ),
        (
            "results by confidence band and batch",
            "SELECT batch_id, backend, band, results FROM discern.result_bands_by_batch ORDER BY 1, 2, 3",
            "SELECT batch_id, backend, CASE WHEN confidence IS NULL THEN -1 ELSE least(floor(confidence * 10), 9)::smallint END AS band, count(*) AS results FROM discern.results WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        )
    ]

    static func text(_ database: Database, _ sql: SQL) async throws -> String {
        try await database.rows("SELECT coalesce(json_agg(x)::text, '[]') AS doc FROM (\(sql)) x", as: String.self).first ?? ""
    }

    static func expectExact(_ database: Database, _ moment: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for comparison in comparisons {
            let view = try await text(database, comparison.view), truth = try await text(database, comparison.truth)
            #expect(view == truth, "\(comparison.what), \(moment):\n view  \(view)\n table \(truth)", sourceLocation: sourceLocation)
        }
    }

    static func rollUp(_ database: Database) async throws -> Int {
        try await database.withConnection { try Rollups.rollUp($0) }
    }

    @Test("views equal the tables before and after rolling up, through completions, deaths, retries, deletes and recounts")
    func exactThroughEveryChange() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let paths = (1...6).map { "/night/\($0).jpg" }
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: paths, batch: "night")
                let jobs = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 6, leaseSeconds: 60)
                let results = jobs.prefix(4).enumerated().map { index, job in
                    (
                        job.id,
                        CompletionTests.result(
                            category: index == 0 ? nil : "truck", confidence: index == 1 ? nil : 0.5 + 0.1 * Double(index),
                            identifiers: [], raw: "{}", quality: 80)
                    )
                }
                _ = try JobQueue.complete(connection, workerID: "w", results: Array(results))
            }
            try await database.execute(
                "UPDATE discern.jobs SET state = 'dead', error_kind = 'timeout', last_error = 'slow', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE image_path = '/night/5.jpg'"
            )
            try await Self.expectExact(database, "before any roll-up")
            #expect(try await Self.rollUp(database) > 0)
            try await Self.expectExact(database, "after a roll-up")
            #expect(
                try await database.value(
                    "SELECT (SELECT count(*) FROM discern.pending_job_events) + (SELECT count(*) FROM discern.pending_result_events)", as: Int.self
                ) == 0)

            try await database.execute("SELECT discern.retry_batch('night')")
            try await database.execute("DELETE FROM discern.jobs WHERE image_path = '/night/1.jpg'")
            try await Self.expectExact(database, "after a retry and a delete")
            _ = try await Self.rollUp(database)
            try await Self.expectExact(database, "after a retry, a delete and a roll-up")

            try await database.execute("SELECT discern.recount_rollups()")
            try await Self.expectExact(database, "after a recount")
        }
    }

    @Test("a roll-up leaves an open transaction's events for the next one, and two roll-ups never count twice")
    func openTransactionsAndConcurrentRollUps() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { try JobQueue.enqueue($0, paths: ["/a.jpg", "/b.jpg"], batch: "b") }
            let open = try Connection(conninfo: conninfo)
            try open.execute("BEGIN")
            let jobs = try JobQueue.claim(open, workerID: "w", services: ["discerner"], limit: 2, leaseSeconds: 60)
            _ = try JobQueue.complete(
                open, workerID: "w",
                results: jobs.map {
                    ($0.id, CompletionTests.result(category: "van", confidence: 0.9, identifiers: [], raw: "{}", quality: nil))
                })
            #expect(try await Self.rollUp(database) == 0, "nothing committed yet")
            try open.execute("COMMIT")
            try await Self.expectExact(database, "committed after the roll-up began")

            // A roll-up in progress elsewhere: this one returns at once and moves nothing.
            try open.execute("BEGIN")
            try open.execute("SELECT discern.roll_up()")
            #expect(try await Self.rollUp(database) == 0, "the advisory lock is held by the open roll-up")
            try open.execute("COMMIT")
            try await Self.expectExact(database, "after the concurrent roll-up committed")
            #expect(try await Self.rollUp(database) == 0, "everything was moved once")
            try await Self.expectExact(database, "at rest")
        }
    }

    @Test("discern prune --results-days deletes old results with their entities; the dashboards' counts keep them")
    func pruningResultsKeepsTheCounts() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/old.jpg", "/new.jpg"], batch: "b")
                let jobs = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 2, leaseSeconds: 60)
                _ = try JobQueue.complete(
                    connection, workerID: "w",
                    results: jobs.map {
                        ($0.id, CompletionTests.result(category: "van", confidence: 0.9, identifiers: [], raw: "{}", quality: nil))
                    })
            }
            _ = try await Self.rollUp(database)
            try await database.execute("UPDATE discern.results SET created_at = now() - interval '400 days' WHERE image_path = '/old.jpg'")
            let before = try await Self.text(database, "SELECT * FROM discern.results_per_batch")
            let output = try await Subprocess.run(
                try WorkerProcess.binary.path, ["prune", "--days", "0", "--results-days", "365"],
                environment: ["DISCERN_DATABASE_URL": conninfo])
            #expect(output.contains("pruned 2 finished job(s) older than 0 day(s) and 1 result(s) older than 365 day(s)"), "\(output)")
            #expect(try await database.rows("SELECT image_path FROM discern.results", as: String.self) == ["/new.jpg"])
            #expect(
                try await database.value(
                    "SELECT count(*)::int FROM discern.entities e LEFT JOIN discern.results r ON r.id = e.result_id WHERE r.id IS NULL", as: Int.self
                ) == 0)
            #expect(try await Self.text(database, "SELECT * FROM discern.results_per_batch") == before, "what was produced stays counted")
        }
    }
}
