import Foundation
import SampleImages
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// The rule "no blocking C call on Swift's cooperative pool", checked on a real worker process:
/// with DISCERN_AUDIT_BLOCKING=1 every libpq, libcurl and libvips entry point stops the process if
/// it runs on any thread but discern's own.
@Suite("Blocking-call audit", .integrationTimeLimit)
struct BlockingAuditTests {
    @Test("a worker with the audit on processes every kind of job across all five services and exits cleanly")
    func workerKeepsBlockingCallsOffThePool() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await MixedJobs.enqueue(40, into: conninfo, folder: folder)
                let large = try folder.write(SampleImages.photo(width: 5000, height: 3000, seed: 3), as: "large.jpg")
                let broken = try folder.write(Data("not an image".utf8), as: "broken.jpg")
                try await Database(conninfo: conninfo).withConnection { connection in
                    try JobQueue.enqueue(connection, paths: [large, broken])
                }
                try await MixedJobs.liftRateLimits(conninfo)
                try await TestSimulator.with(.unthrottled) { simulator in
                    var environment = simulator.workerEnvironment
                    environment["DISCERN_AUDIT_BLOCKING"] = "1"
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--drain", "--log-level", "info", "--poll-seconds", "0.2"],
                        environment: environment)
                    await worker.expectExit()
                    // 1: the drained run ended with a dead job (the broken file), as documented.
                    #expect(worker.exitStatus == 1, "\(worker.output.suffix(1500))")
                    #expect(worker.output.contains("blocking_call_audit=on"), "the audit was not active")
                    #expect(!worker.output.contains("blocking call"), "\(worker.output.suffix(1500))")
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census.succeeded == 41 && census.dead == 1, "\(census)")
                }
            }
        }
    }
}
