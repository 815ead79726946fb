import ServiceClients
import Foundation
import SampleImages
import JobQueue
import Logging
import Postgres
import Simulator
import TestFixtures
import Testing
import Worker

/// Jobs for all five services, files on disk, in one batch.
enum MixedJobs {
    /// `count` jobs, spread over the five services the way a night might mix them.
    static func enqueue(_ count: Int, into conninfo: String, folder: URL) async throws {
        let photos = try (1...20).map { try folder.write(SampleImages.photo(width: 320, height: 256, seed: $0), as: "photo-\($0).jpg") }
        let videos = try (1...5).map { try folder.write(Uploads.video(seed: UInt8($0)), as: "selfie-\($0).mp4") }
        let database = Database(conninfo: conninfo)
        try await database.withConnection { connection in
            let share = count / 10
            let plan: [(service: String, action: String, count: Int, files: [String])] = [
                ("ooto", "identify", share, photos), ("azure-face", "identify", share, photos),
                ("landmark", "predict", share, photos), ("unissey", "analyze", share, videos),
                ("discerner", "analyze", count - 4 * share, photos)
            ]
            for entry in plan {
                let paths = (0..<entry.count).map { entry.files[$0 % entry.files.count] }
                try JobQueue.enqueue(connection, paths: paths, service: entry.service, action: entry.action, batch: "mixed")
            }
        }
    }

    /// Lifts the contract's default limits, which would make a test take minutes.
    static func liftRateLimits(_ conninfo: String) async throws {
        try await Database(conninfo: conninfo).execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
    }
}

@Suite("Fault run", .integrationTimeLimit)
struct FaultRunTests {
    @Test("500 jobs over all five services through 5xx, 429, timeouts, garbage and expired URLs: all succeed, Retry-After kept")
    func faultRun() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.serverErrorRate = 0.20
        configuration.faults.rateLimitRate = 0.10
        configuration.faults.retryAfterSeconds = 1
        // One call in a hundred hangs past the client's patience: 30 s, then 31 for the hang. The
        // patience is a guard, not a guess at speed: beside the whole suite on 2 cores the
        // in-process simulator can take seconds to answer a 429, and a worker that gave up on it
        // would retry early against a 429 it never received: a breach to the Retry-After check.
        configuration.faults.timeoutRate = 0.01
        configuration.faults.hangSeconds = 31
        configuration.faults.malformedRate = 0.02
        configuration.faults.expiredUploadURLRate = 0.05
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await MixedJobs.enqueue(500, into: conninfo, folder: folder)
                try await MixedJobs.liftRateLimits(conninfo)
                try await TestSimulator.with(configuration) { simulator in
                    let logs = CapturedLogs()
                    let services = try SimulatedServices.all(
                        simulator, gate: PostgresRateGate(conninfo: conninfo, logger: logs.logger()),
                        extra: ["DISCERN_HTTP_TIMEOUT_SECONDS": "30"])
                    let summary = try await TestWorker.drain(conninfo, simulator: simulator, clients: services, logger: logs.logger()) {
                        $0.concurrency = 16
                    }
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census == QueueCensus(succeeded: 500, results: 500, jobsWithOneResult: 500), "\(census), \(summary)")
                    let violations = await simulator.stats.retryAfterViolations
                    // A fault mix this dense may trip a breaker now and then: its hand-backs must keep Retry-After too.
                    let trips =
                        try await Database(conninfo: conninfo).rows(
                            "SELECT count(*) FROM discern.operator_actions WHERE action LIKE 'unavailable%'", as: Int.self
                        ).first ?? 0
                    print(
                        "fault run: \(summary.succeeded) succeeded, \(summary.retryScheduled) retries, \(trips) breaker trip(s), "
                            + "\(summary.handedBackLater) handed back, \(violations.count) Retry-After violation(s)")
                    #expect(violations.isEmpty, "\(violations.prefix(5))")
                    for fault in ["5xx", "429", "timeout", "malformed"] {
                        #expect(await simulator.stats.faultCount(fault) > 0, "no \(fault) was injected")
                    }
                    // Thousands of failed calls were logged and recorded: no credential in any of them.
                    let history =
                        try await Database(conninfo: conninfo).rows(
                            "SELECT coalesce(string_agg(error_history::text, ' '), '') FROM discern.jobs", as: String.self
                        ).first ?? ""
                    #expect(history.contains("http_5xx"), "failures were recorded")
                    let credentials = SimulatorConfiguration.Credentials()
                    for secret in [credentials.ootoAppKey, credentials.azureFaceKey, credentials.unisseyAPIKey, "X-Amz-Signature="] {
                        #expect(!logs.text.contains(secret))
                        #expect(!history.contains(secret))
                    }
                    let byService = try await Database(conninfo: conninfo).rows(
                        "SELECT backend, count(*) AS results, sum(api_calls) AS calls FROM discern.results GROUP BY backend ORDER BY backend",
                        as: String.self, Int.self, Int.self)
                    #expect(byService.count == 5)
                    for (_, results, calls) in byService {
                        #expect(calls >= results, "api_calls counts every call, retries included")
                    }
                }
            }
        }
    }
}
