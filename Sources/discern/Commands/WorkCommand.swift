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

    @Option(help: "Image Discerner base URL. Default: $DISCERN_DISCERNER_URL.")
    var discernerURL: String?

    @Option(help: "Seconds a claimed job stays ours without a heartbeat.")
    var leaseSeconds: Double = 300

    func run() async throws {
        let logger = logging.makeLogger("discern.worker")
        guard let baseURL = discernerURL ?? ProcessInfo.processInfo.environment["DISCERN_DISCERNER_URL"] else {
            throw ValidationError("set --discerner-url or DISCERN_DISCERNER_URL to the Image Discerner base URL")
        }
        let http = CurlHTTPClient(configuration: .init(threads: max(4, concurrency * 2)))
        let backend = DiscernerBackend(configuration: .init(baseURL: baseURL), http: http)
        let worker = Worker(
            conninfo: database.conninfo, backends: [backend],
            configuration: WorkerConfiguration(concurrency: concurrency, leaseSeconds: leaseSeconds, drain: drain),
            logger: logger)

        let run = Task { try await worker.run() }
        // SIGINT/SIGTERM: stop claiming; jobs in flight finish before the process exits.
        let signals = Task {
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                logger.notice("stopping: finishing jobs in flight", metadata: ["signal": "\(signal)"])
                run.cancel()
                return
            }
        }
        defer { signals.cancel() }
        let summary = try await run.value
        print("succeeded: \(summary.succeeded)  dead: \(summary.dead)  retry scheduled: \(summary.retryScheduled)  lease lost: \(summary.leaseLost)")
    }
}
