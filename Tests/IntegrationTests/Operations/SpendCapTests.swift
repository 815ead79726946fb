import Foundation
import JobQueue
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// A spend cap holds the way a rate limit does: across every worker, counted where calls leave.
@Suite("Spend caps", .integrationTimeLimit)
struct SpendCapTests {
    @Test("three workers racing never send one billed call over the cap; jobs wait, none dies or is lost; the cap shows; raised, the jobs finish")
    func capHoldsAcrossWorkers() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                let jobs = 40, cap = 41
                // Limits far from binding (slots leased 25 at a time), so the cap is what binds.
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 6000, burst = 50")
                try await database.execute(
                    """
                    INSERT INTO discern.service_budgets (backend, price_per_call, cap_calls, cap_period) VALUES ('discerner', 0.01, \(cap), 'day')
                    """)
                let images = try (1...10).map { try folder.write(SampleImages.photo(width: 96, height: 64, seed: 40 + $0), as: "cap-\($0).jpg") }
                try await database.withConnection { connection in
                    _ = try JobQueue.enqueue(connection, paths: (0..<jobs).map { images[$0 % images.count] }, batch: "capped")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let workers = try (0..<3).map { _ in
                        try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                            arguments: ["--concurrency", "8", "--log-level", "debug"])
                    }
                    defer { workers.forEach { $0.kill() } }
                    // Each job is two billed calls (an upload URL, an analysis): the cap stops them half way.
                    let stopped = await Announcements.until(conninfo) {
                        let paused =
                            (try? await database.value("SELECT count(*) FROM discern.paused_backends WHERE paused_by = 'spend cap'", as: Int.self))
                            == 1
                        let running = await database.jobCount(where: "state = 'running'")
                        return paused && running == 0
                    }
                    #expect(stopped, "\(workers[0].output.suffix(600))")
                    // Every worker, holding nothing and with room, has since looked and claimed
                    // nothing (its next look comes within the poll interval): no call can follow.
                    let marks = workers.map(\.outputLength)
                    for (worker, mark) in zip(workers, marks) {
                        #expect(await worker.heldNothingAndClaimedNothing(after: mark), "\(worker.output.suffix(1500))")
                    }
                    let billed = try await database.value(
                        "SELECT coalesce(sum(calls), 0)::bigint FROM discern.billed_calls WHERE backend = 'discerner'", as: Int.self)
                    let reached = await simulator.stats.callCount("discerner")
                    #expect(billed <= cap && reached <= billed, "billed \(billed), the service saw \(reached), cap \(cap)")
                    #expect(reached >= cap - 2 * 3 * 8, "the cap, not something else, stopped them: \(reached) calls")
                    let succeeded = await database.jobCount(where: "state = 'succeeded'"),
                        waiting = await database.jobCount(where: "state = 'available'")
                    #expect(succeeded > 0 && waiting > 0 && succeeded + waiting == jobs, "\(succeeded) succeeded, \(waiting) wait")
                    #expect(await database.jobCount(where: "state = 'dead'") == 0)
                    #expect(await database.jobCount(where: "attempts > 1") == 0, "a job sent back by the cap spends no attempt")
                    let status = try await Subprocess.run(try WorkerProcess.binary.path, ["status", "--database-url", conninfo])
                    #expect(status.contains("paused: discerner by spend cap"), "\(status)")

                    // More budget: the pause lifts itself, every job finishes, still never over.
                    try await database.execute("UPDATE discern.service_budgets SET cap_calls = 1000 WHERE backend = 'discerner'")
                    let finished = await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded'") == jobs }
                    let done = await database.jobCount(where: "state = 'succeeded'")
                    #expect(finished, "\(done) of \(jobs)")
                    #expect(await database.jobCount(where: "state = 'dead'") == 0)
                    let paused = try await database.value("SELECT count(*) FROM discern.paused_backends", as: Int.self)
                    #expect(paused == 0)
                }
            }
        }
    }
}
