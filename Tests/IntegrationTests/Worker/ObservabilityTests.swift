import CurlHTTP
import Foundation
import Imaging
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// What a person and a dashboard see of a running `discern work` process.
@Suite("Worker observability", .integrationTimeLimit)
struct ObservabilityTests {
    @Test("the metrics endpoint reports jobs, stages and in-flight counts; SIGTERM then leaves nothing running")
    func metricsEndpoint() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.2
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(60, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: [
                            "--metrics-port", "0", "--log-level", "notice", "--log-format", "json", "--concurrency", "4", "--poll-seconds", "0.2"
                        ])
                    let metricsPort = try #require(await worker.announcedMetricsPort(), "no metrics port in the log: \(worker.output.suffix(500))")
                    let http = CurlHTTPClient(configuration: .init(threads: 1))
                    var text = ""
                    let scraped = try await Poll.until {
                        let response = try await http.send(
                            HTTPRequest(method: "GET", url: "http://127.0.0.1:\(metricsPort)/metrics", timeoutSeconds: 5))
                        text = String(decoding: response.body, as: UTF8.self)
                        return Self.value(of: "discern_jobs_total", with: #"outcome="succeeded""#, in: text) >= 2
                    }
                    #expect(scraped, "\(text.prefix(2000))")
                    #expect(text.contains("discern_stage_duration_seconds_bucket"))
                    #expect(text.contains(#"stage="prepare""#) && text.contains(#"stage="analyze""#))
                    #expect(text.contains("discern_jobs_in_flight"))
                    #expect(text.contains("discern_api_calls_total"))
                    #expect(text.contains("discern_bytes_total"))

                    worker.terminate()
                    await worker.expectExit()
                    #expect(worker.exitStatus == 0, "\(worker.output.suffix(500))")
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census.running == 0, "\(census)")
                    #expect(census.succeeded == census.results)
                }
            }
        }
    }

    /// The value of the first sample of `metric` whose labels contain `label`; 0 if none.
    static func value(of metric: String, with label: String, in text: String) -> Double {
        text.split(separator: "\n").first { $0.hasPrefix(metric + "{") && $0.contains(label) }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
    }

    @Test("a configuration file supplies the database and the service; flags and the environment win over it")
    func configurationFile() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(5, into: conninfo, folder: folder)
                try await TestSimulator.with(.unthrottled) { simulator in
                    let file = folder.appendingPathComponent("discern.conf")
                    try Data(
                        """
                        # discern settings
                        DISCERN_DATABASE_URL=\(conninfo)
                        DISCERN_DISCERNER_URL="\(simulator.baseURL)"
                        DISCERN_LOG_LEVEL=warning
                        DISCERN_CONCURRENCY=not-a-number-but-overridden
                        """.utf8
                    ).write(to: file)
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--config", file.path, "--drain", "--concurrency", "2"],
                        plainArguments: true)
                    await worker.expectExit()
                    #expect(worker.exitStatus == 0, "\(worker.output.suffix(500))")
                    #expect(try await TestDatabase.census(conninfo).succeeded == 5)
                }
            }
        }
    }
}
