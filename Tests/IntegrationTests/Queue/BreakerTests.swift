import Foundation
import ErrorCodes
import JobQueue
import Postgres
import TestFixtures
import Testing

/// The breakers' SQL (migration 0030, sql/functions): what claims skip, who probes, who closes.
/// Statements run on the connection's thread; what they return is judged here, in the test.
@Suite("Breakers", .integrationTimeLimit)
struct BreakerTests {
    /// One connection's statements, awaited.
    struct Session {
        let database: Database
        init(_ conninfo: String) { database = Database(conninfo: conninfo, name: "test-breakers") }

        func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T { try await database.withConnection(body) }
        /// A statement whose rows are not read: says how many rows it changed.
        @discardableResult
        func sql(_ statement: SQL) async throws -> Int {
            try await run { try $0.execute(statement) }
        }
        /// A query, each row's columns read in order as `types`.
        func sql<each Value: PostgresDecodable>(_ statement: SQL, as types: repeat (each Value).Type) async throws -> [(repeat each Value)] {
            try await run { try $0.rows(statement, as: repeat each types) }
        }
        func claim(_ worker: String, limit: Int = 10) async throws -> [Job] {
            try await run { try JobQueue.claim($0, workerID: worker, services: ["discerner", "landmark"], limit: limit, leaseSeconds: 60) }
        }
        func trip(_ worker: String, probeAfter: Double) async throws -> Bool {
            try await run {
                try Breakers.trip($0, service: "discerner", workerID: worker, kind: .network, error: "refused", probeAfterSeconds: probeAfter)
            }
        }
        func probeFailed(_ worker: String, _ job: Job, firstDelay: Double = 5, maxDelay: Double = 120) async throws -> Breakers.ProbeFailure? {
            try await run {
                try Breakers.probeFailed(
                    $0, service: "discerner", workerID: worker, jobID: job.id, kind: .network, error: "refused again",
                    firstDelay: firstDelay, maxDelay: maxDelay)
            }
        }
        func handBackLater(_ worker: String, _ job: Job, after: Double = 0) async throws -> Bool {
            try await run {
                try JobQueue.handBackLater(
                    $0, job: job, workerID: worker, failure: JobFailure(.network, message: "refused"),
                    afterSeconds: after)
            }
        }
        func probeDue() async throws { _ = try await sql("UPDATE discern.service_breakers SET next_probe_at = now()") }
    }

    @Test(
        "a tripped service is claimed by no one but one probe at a time; a failed probe steps aside and waits longer; an answered one reopens claims")
    func probeAtATime() async throws {
        try await TestDatabase.with { conninfo in
            let session = Session(conninfo)
            try await session.run { connection in
                try JobQueue.enqueue(connection, paths: (1...6).map { "/photos/\($0).jpg" })
                try JobQueue.enqueue(connection, paths: ["/photos/landmark.jpg"], service: "landmark")
            }
            #expect(try await session.trip("w1", probeAfter: 3600))
            #expect(try await !session.trip("w2", probeAfter: 0), "a second trip changes nothing")
            // Not due yet: only the other service's job is claimed.
            #expect(try await session.claim("w1").map(\.service) == ["landmark"])
            try await session.probeDue()
            let probe = try await session.claim("w1")
            #expect(probe.count == 1 && probe.first?.isProbe == true && probe.first?.service == "discerner", "\(probe)")
            #expect(try await session.claim("w2").isEmpty, "a second probe while the first runs")
            let first = try #require(probe.first)

            let reported = try #require(try await session.probeFailed("w1", first, firstDelay: 5, maxDelay: 10))
            #expect(
                reported.nextProbeSeconds > 8.9 && reported.nextProbeSeconds < 11.1,
                "after a failed probe the next waits the longest delay, ±10 %: \(reported)")
            #expect(reported.jobFailedBefore == 0)
            #expect(try await session.handBackLater("w1", first, after: reported.nextProbeSeconds))
            #expect(try await session.probeFailed("w1", first) == nil, "a stale report changes nothing")
            try await session.probeDue()
            // The failed probe's photo came first by every other measure: the next probe is another one.
            _ = try await session.sql("UPDATE discern.jobs SET priority = -5, run_at = now() WHERE id = \(first.id)")
            let next = try await session.claim("w2")
            #expect(next.count == 1 && next.first?.isProbe == true && next.first?.id != first.id, "the next probe tries another photo: \(next)")
            // Measured from the claim's own clock, not the test's: under load the test may read it a
            // minute later (CI once did, 67 s), and a lease of 60 s would look already spent.
            let moved =
                try await session.sql(
                    "SELECT extract(epoch FROM next_probe_at - probe_started_at)::float8 AS s FROM discern.service_breakers", as: Double?.self
                ).first ?? nil
            #expect(moved == 60, "a probe under way moves the next one past its 60 s lease: \(String(describing: moved))")

            #expect(try await session.run { try Breakers.close($0, service: "discerner", by: "w2", why: "a probe was answered") })
            #expect(try await session.claim("w1").count == 5, "claims resume at once: every job but the probe under way")
            let actions = try await session.sql("SELECT action, scope FROM discern.operator_actions ORDER BY id", as: String.self, String.self)
            let log = actions.map { action, scope in "\(action): \(scope)" }
            #expect(
                log.count == 2 && log.first?.hasPrefix("unavailable: service discerner") == true && log.last?.contains("1 failed probe(s)") == true,
                "\(log)")
        }
    }

    @Test(
        "a photo that keeps failing as the probe is tried again only once every other has failed as often, and says how often; with no job to probe the next probe moves on; workers of earlier releases claim through claim_jobs"
    )
    func probeRotation() async throws {
        try await TestDatabase.with { conninfo in
            let session = Session(conninfo)
            try await session.run { try JobQueue.enqueue($0, paths: ["/photos/a.jpg", "/photos/b.jpg"]) }
            _ = try await session.trip("w1", probeAfter: 0)
            var probed: [Int] = [], failedBefore: [Int] = []
            for _ in 0..<5 {
                try await session.probeDue()
                let probe = try #require(try await session.claim("w1").first)
                probed.append(probe.id)
                let reported = try #require(try await session.probeFailed("w1", probe, firstDelay: 1, maxDelay: 2))
                failedBefore.append(reported.jobFailedBefore)
                _ = try await session.handBackLater("w1", probe)
            }
            #expect(Set(probed.prefix(2)).count == 2 && probed[2] == probed[0] && probed[3] == probed[1], "in turns: \(probed)")
            #expect(failedBefore == [0, 0, 1, 1, 2])
            // Nothing to probe: the next probe moves on instead of every claim trying again.
            _ = try await session.sql("UPDATE discern.jobs SET run_at = now() + interval '1 hour'")
            try await session.probeDue()
            #expect(try await session.claim("w1").isEmpty)
            #expect(try await session.sql("SELECT next_probe_at > now() AS later FROM discern.service_breakers", as: Bool.self).first == true)
            // The older claim still answers, in its older shape.
            _ = try await session.sql("SELECT discern.resume('discerner')")
            _ = try await session.sql("UPDATE discern.jobs SET run_at = now()")
            #expect(try await session.sql("SELECT id FROM discern.claim_jobs('old', 10, 60, ARRAY['discerner'], false, 0)", as: Int.self).count == 2)
        }
    }

    @Test("a probe whose worker died frees the next one; discern.resume closes a breaker by hand")
    func deadProbeAndResume() async throws {
        try await TestDatabase.with { conninfo in
            let session = Session(conninfo)
            try await session.run { try JobQueue.enqueue($0, paths: (1...3).map { "/photos/\($0).jpg" }) }
            _ = try await session.trip("w1", probeAfter: 0)
            let probe = try await session.claim("gone")
            #expect(probe.count == 1 && probe.first?.isProbe == true)
            // Its worker stopped: the lease ran out and the job was rescued.
            _ = try await session.sql("UPDATE discern.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(probe.first?.id)")
            _ = try await session.run { try JobQueue.rescue($0) }
            try await session.probeDue()
            let next = try await session.claim("w2")
            #expect(next.count == 1 && next.first?.isProbe == true, "\(next)")
            #expect(try await session.sql("SELECT discern.resume('discerner') AS r", as: Bool.self).first == true)
            #expect(try await session.sql("SELECT count(*) FROM discern.service_breakers", as: Int.self).first == 0)
        }
    }

    @Test("a job handed back while its service is down keeps its attempts, and its history says why")
    func givenBackUncounted() async throws {
        try await TestDatabase.with { conninfo in
            let session = Session(conninfo)
            try await session.run { try JobQueue.enqueue($0, paths: ["/photos/1.jpg"]) }
            for _ in 0..<20 {
                let job = try #require(try await session.claim("w1").first)
                #expect(try await session.handBackLater("w1", job))
            }
            let (state, attempts, n, counted) = try #require(
                try await session.sql(
                    """
                    SELECT state, attempts, jsonb_array_length(error_history) AS n, error_history->0->>'counted' AS counted FROM discern.jobs
                    """, as: String.self, Int.self, Int.self, String?.self
                ).first)
            #expect(state == "available" && attempts == 0, "twenty outages' hand-backs cost no attempt")
            #expect(n == 20 && counted == "false")
        }
    }

    @Test("a job handed back after a 429 waits for the Retry-After, even when claims may resume at once")
    func givenBackKeepsRetryAfter() async throws {
        try await TestDatabase.with { conninfo in
            let session = Session(conninfo)
            try await session.run { try JobQueue.enqueue($0, paths: ["/photos/1.jpg"]) }
            let job = try #require(try await session.claim("w1").first)
            // An hour, so that the claim below comes before it however slow the machine: under
            // the whole suite's load, half a minute can pass before that claim.
            let told = JobFailure(.http429, message: "Too Many Requests", retryAfterSeconds: 3600)
            #expect(try await session.run { try JobQueue.handBackLater($0, job: job, workerID: "w1", failure: told, afterSeconds: 0) })
            // From the moment it was handed back (updated_at), whenever this test reads it.
            let wait =
                try await session.sql("SELECT extract(epoch FROM run_at - updated_at)::float8 AS s FROM discern.jobs", as: Double?.self).first ?? nil
            #expect((wait ?? 0) >= 3600, "claimable again only after the service's hour: \(String(describing: wait))")
            #expect(try await session.claim("w2").isEmpty)
        }
    }
}
