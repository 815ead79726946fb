import JobQueue
import Postgres
import TestFixtures
import Testing
@testable import Worker

/// A worker starved of CPU beats late; another worker's rescuer takes it for stopped and hands
/// its job back; its own producer claims that job again while the first run is still under way.
/// Were the second claim run too, the job would run twice in one worker: the second run's
/// abandonment wait would replace the first's, and neither the first's task nor the worker's
/// cancellation would ever end (docs/decisions/0004-jobs-a-worker-lets-go.md).
@Suite("A job claimed again by the worker still running it", .integrationTimeLimit)
struct ReclaimedJobTests {
    @Test("the run under way keeps it: the second claim is not run, and both abandonment waits end")
    func runsOnce() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let (first, again) = try await database.withConnection { connection -> (Job, Job) in
                try JobQueue.enqueue(connection, paths: ["/images/a.jpg"])
                let first = try #require(try JobQueue.claim(connection, workerID: "late", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '1 hour'")
                try connection.execute("UPDATE discern.jobs SET lease_expires_at = now() - interval '1 second'")
                #expect(try JobQueue.rescue(connection, rescuer: "late").rescued == 0, "a worker took itself for stopped")
                #expect(try JobQueue.rescue(connection, rescuer: "other").rescued == 1)
                let again = try #require(try JobQueue.claim(connection, workerID: "late", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                return (first, again)
            }
            #expect(first.id == again.id)
            let inFlight = InFlight {}
            let taken = await inFlight.claimed([first])
            #expect(taken.fresh.map(\.id) == [first.id] && taken.running.isEmpty)
            let retaken = await inFlight.claimed([again])
            #expect(retaken.fresh.isEmpty && retaken.running == [first.id])

            // Were there two waits for one job, neither would be dropped unresumed.
            let abandonments = Abandonments()
            async let one: Void = abandonments.wait(for: first.id)
            async let two: Void = abandonments.wait(for: first.id)
            try await Task.sleep(for: .milliseconds(50))
            abandonments.abandon([first.id])
            _ = await (one, two)
        }
    }
}
