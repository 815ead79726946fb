import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

/// discern.batch_summary keeps a finished batch's summary and must never show
/// it once the batch has changed: a retry, jobs added, jobs pruned. A running batch's summary
/// is kept for 10 s.
@Suite("Batch summaries", .integrationTimeLimit)
struct BatchSummaryTests {
    @Test("a finished batch's summary is kept, and forgotten when a job is retried, added or deleted; a running one's for 10 s")
    func summariesFollowEveryChange() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let summary = { @Sendable () async throws -> (jobs: Int, available: Int, succeeded: Int, dead: Int, stored: Int) in
                let (jobs, available, succeeded, dead) = try #require(
                    try await database.rows(
                        """
                        SELECT (s ->> 'jobs')::int AS jobs, (s ->> 'available')::int AS available, (s ->> 'succeeded')::int AS succeeded,
                               (s ->> 'dead')::int AS dead
                        FROM discern.batch_summary((SELECT id FROM discern.batches WHERE name = 'night')) s
                        """, as: Int.self, Int.self, Int.self, Int.self
                    ).first)
                // A statement of its own: the one above does not see what its function stored.
                let stored = try await database.value("SELECT count(*)::int FROM discern.batch_summaries", as: Int.self)
                return (jobs, available, succeeded, dead, stored)
            }
            let finishAll = { @Sendable () async throws in
                _ = try await database.execute(
                    """
                    UPDATE discern.jobs SET state = CASE WHEN image_path LIKE '%3.jpg' THEN 'dead' ELSE 'succeeded' END,
                                            error_kind = CASE WHEN image_path LIKE '%3.jpg' THEN 'timeout' END, finished_at = now()
                    WHERE state = 'available'
                    """)
            }
            // What a running batch's summary would be after its 10 s.
            let tenSecondsLater = { @Sendable () async throws in
                _ = try await database.execute("UPDATE discern.batch_summaries SET computed_at = computed_at - interval '11 seconds'")
            }
            _ = try await database.withConnection { try JobQueue.enqueue($0, paths: ["/p/1.jpg", "/p/2.jpg", "/p/3.jpg"], batch: "night") }

            var now = try await summary()
            #expect(now.available == 3 && now.stored == 1, "a running batch is counted and kept for 10 s")

            // Within its 10 s, however slow the machine: a starved run can spend more than 10 s
            // between these two reads (a test of the rule, not of the machine's speed).
            try await database.execute("UPDATE discern.batch_summaries SET computed_at = now() + interval '1 hour'")
            try await finishAll()
            #expect(try await summary().available == 3, "completions do not mark the batch: within 10 s the count stands")
            try await database.execute("UPDATE discern.batch_summaries SET computed_at = now()")
            try await tenSecondsLater()
            now = try await summary()
            #expect(now.succeeded == 2 && now.dead == 1 && now.stored == 1, "a finished batch is stored")

            try await database.execute("SELECT discern.retry_batch('night')")
            now = try await summary()
            #expect(now.available == 1 && now.dead == 0, "a retried job makes the stored summary stale: \(now)")

            try await finishAll()
            try await tenSecondsLater()
            #expect(try await summary().dead == 1)
            _ = try await database.withConnection { try JobQueue.enqueue($0, paths: ["/p/4.jpg"], batch: "night") }
            now = try await summary()
            #expect(now.jobs == 4 && now.available == 1, "a job added to a finished batch shows: \(now)")

            try await finishAll()
            #expect(try await summary().jobs == 4)
            try await database.execute("DELETE FROM discern.jobs WHERE image_path = '/p/4.jpg'")
            now = try await summary()
            #expect(now.jobs == 3 && now.succeeded == 2, "a deleted job leaves the summary: \(now)")
        }
    }
}
