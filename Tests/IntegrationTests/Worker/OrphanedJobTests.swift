import Foundation
import JobQueue
import Postgres
import SampleImages
import TestFixtures
import Testing
import Worker

/// A job leased to a live worker that does not hold it: its outcome could not be written, or a
/// bug lost it. No other worker's rescuer takes a live worker's jobs, and the worker renews no
/// lease for a job it let go, so only the worker's own rescuer can put it back; without that it
/// stays running as long as the worker lives (docs/decisions/0004-jobs-a-worker-lets-go.md).
@Suite("A job its worker lost track of", .integrationTimeLimit)
struct OrphanedJobTests {
    @Test(
        "its lease expired, the worker's own rescuer puts it back (the attempt counted) and the worker runs it; jobs it holds, and other workers', are left be"
    )
    func releasedAndRun() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let path = try folder.write(SampleImages.photo(width: 96, height: 64, seed: 4), as: "orphan.jpg")
                let database = Database(conninfo: conninfo)
                let orphan = try await database.withConnection { connection -> Int in
                    try JobQueue.enqueue(connection, paths: [path, path + ".other", path + ".held"])
                    let jobs = try JobQueue.claim(connection, workerID: "holder", services: ["discerner"], limit: 3, leaseSeconds: 60)
                    try #require(jobs.count == 3)
                    try connection.execute("UPDATE discern.jobs SET lease_expires_at = now() - interval '1 second'")
                    // One held by another worker, one this worker still holds: neither is its to release.
                    try connection.execute("UPDATE discern.jobs SET lease_owner = 'someone-else' WHERE id = \(jobs[1].id)")
                    #expect(try JobQueue.failOrphans(connection, workerID: "holder", holding: [jobs[2].id]) == [jobs[0].id])
                    #expect(try JobQueue.failOrphans(connection, workerID: "holder", holding: []) == [jobs[2].id])
                    // Lost on its last attempt: dead, saying what to do.
                    try connection.execute(
                        """
                        UPDATE discern.jobs SET state = 'running', attempts = max_attempts, lease_owner = 'holder',
                                                lease_expires_at = now() - interval '1 second' WHERE id = \(jobs[2].id)
                        """)
                    #expect(try JobQueue.failOrphans(connection, workerID: "holder", holding: []) == [jobs[2].id])
                    let (state, errorKind, lastError) = try #require(
                        try connection.rows(
                            "SELECT state, error_kind, last_error FROM discern.jobs WHERE id = \(jobs[2].id)",
                            as: String.self, String.self, String.self
                        ).first)
                    #expect(state == "dead" && errorKind == "outcome_unrecorded")
                    #expect(lastError.contains("discern retry"))
                    // Put back as a job the worker lost: running, leased to it, the lease expired.
                    try connection.execute(
                        """
                        UPDATE discern.jobs SET state = 'running', attempts = 1, lease_owner = 'holder', lease_expires_at = now() - interval '1 second'
                        WHERE id = \(jobs[0].id)
                        """)
                    try connection.execute("DELETE FROM discern.jobs WHERE id <> \(jobs[0].id)")
                    return jobs[0].id
                }
                // The same worker, alive and draining: nothing is claimable until its rescuer acts.
                // Without it the drain never ends: after five minutes (a starved machine's rescuer
                // acts within seconds) the test says so and stops the worker, rather than hang.
                let summary = try await TestSimulator.with { simulator in
                    try await withThrowingTaskGroup(of: WorkerSummary?.self) { race in
                        race.addTask {
                            try await TestWorker.drain(conninfo, simulator: simulator) { configuration in
                                configuration.workerID = "holder"
                                configuration.leaseSeconds = 3
                            }
                        }
                        race.addTask {
                            try await Task.sleep(for: .seconds(300))
                            return nil
                        }
                        let first = try await race.next() ?? nil
                        race.cancelAll()
                        return first
                    }
                }
                #expect(summary?.succeeded == 1, "the worker never ran the job it lost track of")
                let (state, attempts, history) = try #require(
                    try await database.rows(
                        "SELECT state, attempts, error_history::text AS history FROM discern.jobs WHERE id = \(orphan)",
                        as: String.self, Int.self, String.self
                    ).first)
                // The lost attempt counts (it ran, and may have paid for a call): a job whose
                // outcome can never be written ends dead rather than run for ever.
                #expect(state == "succeeded" && attempts == 2)
                #expect(history.contains("outcome_unrecorded"), "its history says an attempt's outcome was lost")
            }
        }
    }
}
