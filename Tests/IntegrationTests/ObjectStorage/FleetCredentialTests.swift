import Foundation
import Postgres
import Simulator
import TestFixtures
import Testing

/// Buckets read with the credentials AWS and Kubernetes hand a workload, never a long-lived key:
/// IRSA's web identity exchanged at a real STS (SeaweedFS's), EKS Pod Identity's agent and an
/// instance role through IMDSv2 (stand-ins written from AWS's documentation, handing out what
/// that STS minted). The S3 server judges every credential.
@Suite("Bucket credentials as fleets get them (SeaweedFS's STS, IRSA, Pod Identity, IMDSv2)", .integrationTimeLimit)
struct FleetCredentialTests {
    @Test(
        "web identity alone enqueues and drains a prefix; a token the STS refuses holds the jobs, and the hold names the source and its token file; the right token drains them, no retry needed"
    )
    func webIdentity() async throws {
        try await FleetBucket.with(photos: 12) { fleet in
            let irsa = fleet.environment(.webIdentity())
            let enqueue = try await fleet.enqueue(irsa)
            #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 12 job(s)"), "\(enqueue.output)")
            try await BucketTests.unthrottle(fleet.conninfo)
            // Not a token the cluster's issuer signed: AssumeRoleWithWebIdentity refuses it.
            let forged = fleet.folder.appendingPathComponent("forged-token")
            let forgedText = "eyJhbGciOiJSUzI1NiIsImtpZCI6Im5vLXN1Y2gta2V5In0.eyJpc3MiOiJodHRwOi8vMTI3LjAuMC4yIn0.c2lnbmF0dXJl"
            try Data(forgedText.utf8).write(to: forged)
            // What an operator runs in the pod first: the source named, fetched, a key listed.
            let service = ["DISCERN_DISCERNER_URL": "http://127.0.0.1:9"]
            let doctor = try await BucketTests.discern(["doctor", "--database-url", fleet.conninfo, "--format", "json"], irsa.merging(service) { $1 })
            let said = try JSONSerialization.jsonObject(with: Data(doctor.output.utf8)) as? [String: Any]
            #expect(doctor.status == 0 && said?["bucketCredentialKind"] as? String == "web-identity", "\(doctor.status): \(doctor.output)")
            let checks = (said?["checks"] as? [[String: String]]) ?? []
            #expect(
                checks.contains { $0["check"] == "bucket s3://fleet/night/" && $0["status"] == "ok" && $0["detail"]?.contains("first byte") == true }
                    && checks.contains { $0["check"] == "missing key under s3://fleet/night/" && $0["detail"]?.contains("404") == true },
                "a key listed and read, a missing one a 404: \(checks)")
            let sick = try await BucketTests.discern(
                ["doctor", "--database-url", fleet.conninfo], fleet.environment(.webIdentity(tokenFile: forged.path)).merging(service) { $1 })
            #expect(
                sick.status == 1 && sick.output.contains("failed  bucket credentials") && sick.output.contains("AssumeRoleWithWebIdentity")
                    && !sick.output.contains(forgedText), "\(sick.status): \(sick.output)")
            try await TestSimulator.with(.unthrottled) { simulator in
                let refused = try fleet.drain(fleet.environment(.webIdentity(tokenFile: forged.path)), simulator: simulator)
                let tripped = try await Announcements.until(fleet.conninfo) {
                    try await Database(conninfo: fleet.conninfo).rows("SELECT 1 FROM discern.service_breakers", as: Int.self).count > 0
                }
                await WorkerProcess.stopAll(refused)
                let breakers: [(errorKind: String?, lastError: String?)] = try await Database(conninfo: fleet.conninfo).rows(
                    "SELECT error_kind, last_error FROM discern.service_breakers", as: String?.self, String?.self
                )
                let breaker = breakers.first
                let said = breaker?.lastError ?? ""
                #expect(tripped, "the refused token tripped nothing: \(refused.map { $0.output.suffix(1500) })")
                #expect(
                    breaker?.errorKind == "object_store_refused" && said.contains("web identity")
                        && said.contains(forged.path) && said.contains("AssumeRoleWithWebIdentity"), "\(said)")
                #expect(!said.contains(forgedText) && !refused.contains { $0.output.contains(forgedText) }, "the token reached a message")
                #expect(try await TestDatabase.census(fleet.conninfo).dead == 0, "a job ended dead for the credential's sake")
                let fixed = try fleet.drain(irsa, simulator: simulator)
                for worker in fixed { _ = await worker.waitForExit() }
                #expect(fixed.map(\.exitStatus) == [0], "\(fixed.map { $0.output.suffix(1500) })")
            }
            #expect(try await TestDatabase.census(fleet.conninfo) == QueueCensus(succeeded: 12, results: 12, jobsWithOneResult: 12))
            #expect(try await fleet.standins.stats().minted == 0, "the workers asked the STS themselves, not the stand-ins' endpoints")
        }
    }

    @Test(
        "an instance role through IMDSv2 alone, and EKS Pod Identity's agent alone, each enqueue and drain a prefix with what the STS minted",
        arguments: [FleetBucket.Source.instanceMetadata, .podIdentity])
    func endpointSource(_ source: FleetBucket.Source) async throws {
        try await FleetBucket.with(photos: 6) { fleet in
            let environment = fleet.environment(source)
            let enqueue = try await fleet.enqueue(environment)
            #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 6 job(s)"), "\(source): \(enqueue.output)")
            try await BucketTests.unthrottle(fleet.conninfo)
            try await TestSimulator.with(.unthrottled) { simulator in
                let workers = try fleet.drain(environment, simulator: simulator)
                for worker in workers { _ = await worker.waitForExit() }
                #expect(workers.map(\.exitStatus) == [0], "\(source): \(workers.map { $0.output.suffix(1500) })")
            }
            #expect(try await TestDatabase.census(fleet.conninfo) == QueueCensus(succeeded: 6, results: 6, jobsWithOneResult: 6), "\(source)")
            let stats = try await fleet.standins.stats()
            switch source {
            case .instanceMetadata: #expect(stats.imds >= 2 && stats.tokens >= 2 && stats.container == 0, "\(stats)")
            default: #expect(stats.container >= 2 && stats.imds == 0, "\(stats)")
            }
        }
    }

    @Test(
        "credentials stated to last 40 s are fetched again before they run out, through a drain of 40 s; a session the store calls expired after that refresh is replaced at once, not at the next; no job dies"
    )
    func expiringCredentials() async throws {
        try await FleetBucket.with(photos: 40) { fleet in
            try await fleet.standins.control(["stated_lifetime": 40])
            try await S3Front.with(upstream: fleet.s3.endpoint, in: fleet.folder) { front in
                let environment = fleet.environment(.podIdentity, endpoint: front.url)
                let enqueue = try await fleet.enqueue(environment)
                #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 40 job(s)"), "\(enqueue.output)")
                // An analysis a second: the drain outlasts a credential's life.
                try await Database(conninfo: fleet.conninfo).withConnection {
                    try $0.execute("UPDATE discern.rate_limits SET per_minute = 60, burst = 1")
                }
                // The enqueue's own credentials end with it: only the workers' must follow on.
                let handedBefore = try await fleet.standins.stats().handed.count
                var workerLog = ""
                // When the worker first signs with its second credentials (fetched halfway through
                // the first's life), the store calls both expired, as AWS says it: sessions revoked,
                // which the worker must replace at once, not at its next refresh.
                try await front.control(["expire_at_new_key": 2])
                try await TestSimulator.with(.unthrottled) { simulator in
                    // Two jobs at a time: the photos are read through the drain, not all at its start.
                    let workers = try fleet.drain(environment, simulator: simulator, arguments: ["--concurrency", "2", "--log-level", "info"])
                    for worker in workers { _ = await worker.waitForExit() }
                    #expect(workers.map(\.exitStatus) == [0], "\(workers.map { $0.output.suffix(2000) })")
                    workerLog = workers.map(\.output).joined(separator: "\n")
                }
                #expect(try await TestDatabase.census(fleet.conninfo) == QueueCensus(succeeded: 40, results: 40, jobsWithOneResult: 40))
                let handed = Array(try await fleet.standins.stats().handed.dropFirst(handedBefore))
                let story = handed.map { "handed \($0[0]), expiring \($0[1])" }.joined(separator: "; ")
                let first = handed.first?[0] ?? 0
                print(
                    "credentials: the worker was handed \(handed.count): "
                        + handed.map { String(format: "at +%.1f s until +%.1f s", $0[0] - first, $0[1] - first) }.joined(separator: ", "))
                #expect(
                    handed.count >= 3,
                    "handed the worker \(handed.count) credential(s): the first, one before it ran out, one after the store refused it (\(story))")
                for (previous, next) in zip(handed, handed.dropFirst()) {
                    #expect(
                        next[0] < previous[1],
                        "a credential stated to expire at \(previous[1]) was replaced only at \(next[0]) (\(story)): \(workerLog.suffix(6000))")
                }
                if handed.count >= 3 {
                    // The second credentials' own refresh would come 20 s before they end: the third came on the refusal.
                    #expect(handed[2][0] < handed[1][1] - 20, "the refused session was replaced only at its refresh (\(story))")
                }
                let stats = try await front.stats()
                #expect(stats.expired >= 1, "the store never refused a session: \(stats.statuses)")
            }
        }
    }
}
