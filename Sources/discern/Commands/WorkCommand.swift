import ArgumentParser
import Backends
import CurlHTTP
import Foundation
import Logging
import UnixSignals
import Worker

struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work", abstract: "Claim and process jobs until stopped (SIGINT/SIGTERM), or until the queue is drained.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LogOptions

    @Flag(help: "Exit when no job is left to claim, retry or finish.")
    var drain = false

    @Option(help: "Jobs in flight at once.")
    var concurrency: Int = 8

    @Option(help: "Image Discerner base URL (sets $DISCERN_DISCERNER_URL). The other services are configured by environment: see docs/backends.md.")
    var discernerURL: String?

    @Option(help: "Seconds a claimed job stays ours without a heartbeat.")
    var leaseSeconds: Double = 300

    @Option(help: "On SIGTERM/SIGINT, seconds jobs in flight may take before they are handed back to the queue.")
    var graceSeconds: Double = 30

    @Option(help: "Seconds between looks at the queue when no notification arrives (LISTEN/NOTIFY is the fast path).")
    var pollSeconds: Double = 5

    func run() async throws {
        let logger = logging.makeLogger("discern.worker")
        var variables = ProcessInfo.processInfo.environment
        if let discernerURL { variables["DISCERN_DISCERNER_URL"] = discernerURL }
        let environment = BackendEnvironment(variables)
        guard !environment.configuredBackendNames.isEmpty else {
            throw ValidationError("no backend is configured: set --discerner-url or DISCERN_DISCERNER_URL (other services: see docs/backends.md)")
        }
        let http = CurlHTTPClient(configuration: .init(threads: max(4, concurrency * 2)))
        let gate = PostgresRateGate(conninfo: database.conninfo, logger: logger)
        let backends: [any AnalysisBackend]
        do {
            backends = try environment.backends(http: http, gate: gate, maxConcurrentCalls: concurrency)
        } catch {
            throw ValidationError("\(error)")
        }
        let worker = Worker(
            conninfo: database.conninfo, backends: backends,
            configuration: WorkerConfiguration(concurrency: concurrency, leaseSeconds: leaseSeconds, pollIntervalSeconds: pollSeconds,
                                               drain: drain, graceSeconds: graceSeconds),
            logger: logger)

        // SIGINT/SIGTERM: stop claiming, let jobs in flight finish within the grace period.
        // A second signal exits at once; unfinished jobs return to the queue when their leases expire.
        let signals = Task {
            var received = 0
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                received += 1
                logger.notice("received \(signal)", metadata: ["count": "\(received)"])
                if received == 1 { worker.stop() } else { Foundation.exit(130) }
            }
        }
        defer { signals.cancel() }
        let summary = try await worker.run()
        print("succeeded: \(summary.succeeded)  dead: \(summary.dead)  retry scheduled: \(summary.retryScheduled)  lease lost: \(summary.leaseLost)")
    }
}
