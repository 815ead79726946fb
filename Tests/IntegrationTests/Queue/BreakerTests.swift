import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

/// The breakers' SQL (migration 0030, sql/functions): what claims skip, who probes, who closes.
@Suite("Breakers")
struct BreakerTests {
    static func claim(_ connection: Connection, _ worker: String, limit: Int = 10) throws -> [Job] {
        try JobQueue.claim(connection, workerID: worker, backends: ["discerner", "landmark"], limit: limit, leaseSeconds: 60)
    }

    @Test("a tripped service is claimed by no one but one probe at a time; a failed probe steps aside and waits longer; an answered one reopens claims")
    func probeAtATime() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, name: "test-breakers")
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: (1...6).map { "/photos/\($0).jpg" })
                try JobQueue.enqueue(connection, paths: ["/photos/landmark.jpg"], backend: "landmark")
                #expect(try Breakers.trip(connection, backend: "discerner", workerID: "w1", kind: "network", error: "refused", probeAfterSeconds: 3600))
                #expect(try !Breakers.trip(connection, backend: "discerner", workerID: "w2", kind: "network", error: "refused", probeAfterSeconds: 0),
                        "a second trip changes nothing")
                // Not due yet: only the other service's job is claimed.
                #expect(try Self.claim(connection, "w1").map(\.backend) == ["landmark"])
                try connection.query("UPDATE discern.service_breakers SET next_probe_at = now()")
                let probe = try Self.claim(connection, "w1")
                #expect(probe.count == 1 && probe[0].isProbe && probe[0].backend == "discerner", "\(probe)")
                #expect(try Self.claim(connection, "w2").isEmpty, "a second probe while the first runs")

                let wait = try #require(try Breakers.probeFailed(connection, backend: "discerner", workerID: "w1", jobID: probe[0].id, kind: "network",
                                                                 error: "refused again", firstDelay: 5, maxDelay: 120))
                #expect(wait > 8 && wait < 12, "the second probe waits twice the first delay: \(wait)")
                #expect(try JobQueue.giveBack(connection, job: probe[0], workerID: "w1", failure: nil, afterSeconds: wait))
                #expect(try Breakers.probeFailed(connection, backend: "discerner", workerID: "w1", jobID: probe[0].id, kind: "network",
                                                 error: "late", firstDelay: 5, maxDelay: 120) == nil, "a stale report changes nothing")
                try connection.query("UPDATE discern.service_breakers SET next_probe_at = now()")
                let next = try Self.claim(connection, "w2")
                #expect(next.count == 1 && next[0].isProbe && next[0].id != probe[0].id, "the next probe tries another photo: \(next)")

                #expect(try Breakers.close(connection, backend: "discerner", by: "w2", why: "a probe was answered"))
                #expect(try Self.claim(connection, "w1").count == 4, "claims resume at once: the rest but the probe's job stepping aside")
                let log = try connection.query("SELECT action, scope FROM discern.operator_actions ORDER BY id").map { "\(try $0.string("action")): \(try $0.string("scope"))" }
                #expect(log.count == 2 && log[0].hasPrefix("unavailable: service discerner") && log[1].contains("after"), "\(log)")
                #expect(log[1].contains("1 failed probe(s)"), "\(log)")
            }
        }
    }

    @Test("a probe whose worker died frees the next one; discern.resume closes a breaker by hand")
    func deadProbeAndResume() async throws {
        try await TestDatabase.with { conninfo in
            try await Database(conninfo: conninfo, name: "test-breakers").withConnection { connection in
                try JobQueue.enqueue(connection, paths: (1...3).map { "/photos/\($0).jpg" })
                try Breakers.trip(connection, backend: "discerner", workerID: "w1", kind: "http_5xx", error: "503", probeAfterSeconds: 0)
                let probe = try Self.claim(connection, "gone")
                #expect(probe.count == 1 && probe[0].isProbe)
                // Its worker stopped: the lease ran out and the job was rescued.
                try connection.query("UPDATE discern.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [probe[0].id])
                _ = try JobQueue.rescue(connection)
                let next = try Self.claim(connection, "w2")
                #expect(next.count == 1 && next[0].isProbe, "\(next)")
                #expect(try connection.query("SELECT discern.resume('discerner') AS r").first?.bool("r") == true)
                #expect(try connection.query("SELECT count(*) AS n FROM discern.service_breakers").first?.int("n") == 0)
            }
        }
    }

    @Test("a job given back while its service is down keeps its attempts, and its history says why")
    func givenBackUncounted() async throws {
        try await TestDatabase.with { conninfo in
            try await Database(conninfo: conninfo, name: "test-breakers").withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/photos/1.jpg"])
                for _ in 0..<20 {
                    let job = try #require(try Self.claim(connection, "w1").first)
                    #expect(try JobQueue.giveBack(connection, job: job, workerID: "w1",
                                                  failure: JobFailure(kind: "network", message: "refused", retryable: true)))
                }
                let row = try #require(try connection.query("SELECT state, attempts, jsonb_array_length(error_history) AS n, error_history->0->>'counted' AS counted FROM discern.jobs").first)
                #expect(try row.string("state") == "available" && row.int("attempts") == 0, "twenty outages' give-backs cost no attempt")
                #expect(try row.int("n") == 20 && row.optionalString("counted") == "false")
            }
        }
    }
}
