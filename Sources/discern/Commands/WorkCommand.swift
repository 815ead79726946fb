import ArgumentParser
import Backends
import CurlHTTP
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import Worker

struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work", abstract: "Claim and process jobs until stopped (SIGINT/SIGTERM), or until the queue is drained.",
        discussion: "Services are configured by environment (or --config FILE): see docs/backends.md and docs/configuration.md.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LogOptions

    @Flag(help: "Exit when no job is left to claim, retry or finish.")
    var drain = false

    @Option(help: "Calls to services in flight at once (hides network latency). Default: $DISCERN_CONCURRENCY, else 16.")
    var concurrency: Int = Int(ProcessInfo.processInfo.environment["DISCERN_CONCURRENCY"] ?? "") ?? 16

    @Option(help: "Threads preparing images. Default: $DISCERN_PREPARE_THREADS, else the number of cores.")
    var prepareThreads: Int = Int(ProcessInfo.processInfo.environment["DISCERN_PREPARE_THREADS"] ?? "")
        ?? ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Megabytes of prepared images held at once, waiting for or in a call. Default: $DISCERN_MAX_MB_IN_FLIGHT, else 64.")
    var maxMBInFlight: Int = Int(ProcessInfo.processInfo.environment["DISCERN_MAX_MB_IN_FLIGHT"] ?? "") ?? 64

    @Option(help: "Image Discerner base URL (sets $DISCERN_DISCERNER_URL).")
    var discernerURL: String?

    @Option(help: "Seconds a claimed job stays ours without a heartbeat.")
    var leaseSeconds: Double = 300

    @Option(help: "On SIGTERM/SIGINT, seconds jobs in flight may take before they are handed back to the queue.")
    var graceSeconds: Double = 30

    @Option(help: "Seconds between looks at the queue when no notification arrives (LISTEN/NOTIFY is the fast path).")
    var pollSeconds: Double = 5

    @Option(help: "Serve Prometheus metrics on this port (0 picks one; it is logged). Default: $DISCERN_METRICS_PORT, else off.")
    var metricsPort: Int? = Int(ProcessInfo.processInfo.environment["DISCERN_METRICS_PORT"] ?? "")

    @Option(help: "Address the metrics endpoint listens on.")
    var metricsHost: String = ProcessInfo.processInfo.environment["DISCERN_METRICS_HOST"] ?? "127.0.0.1"

    @Flag(inversion: .prefixedNo, help: "With --drain at a terminal, show a progress bar with rate and ETA.")
    var progress = true

    func validate() throws {
        guard concurrency >= 1, prepareThreads >= 1 else { throw ValidationError("--concurrency and --prepare-threads must be at least 1") }
        guard leaseSeconds >= 1 else { throw ValidationError("--lease-seconds must be at least 1") }
    }

    func run() async throws {
        let logger = logging.makeLogger("discern.worker")
        let registry = metricsPort != nil ? MetricsServer.bootstrap() : nil
        var variables = ProcessInfo.processInfo.environment
        if let discernerURL { variables["DISCERN_DISCERNER_URL"] = discernerURL }
        let environment = BackendEnvironment(variables)
        guard !environment.configuredBackendNames.isEmpty else {
            throw ValidationError("no backend is configured: set --discerner-url or DISCERN_DISCERNER_URL (other services: see docs/backends.md)")
        }
        let http = CurlHTTPClient(configuration: .init(threads: max(4, concurrency + 4)))
        let gate = PostgresRateGate(conninfo: database.conninfo, logger: logger)
        let backends: [any AnalysisBackend]
        do {
            backends = try environment.backends(http: http, gate: gate, maxConcurrentCalls: concurrency)
        } catch {
            throw ValidationError("\(error)")
        }
        let worker = Worker(
            conninfo: database.conninfo, backends: backends,
            configuration: WorkerConfiguration(concurrency: concurrency, prepareThreads: prepareThreads,
                                               maxBytesInFlight: max(1, maxMBInFlight) << 20, leaseSeconds: leaseSeconds,
                                               pollIntervalSeconds: pollSeconds, drain: drain, graceSeconds: graceSeconds),
            logger: logger)

        let summary = SummaryBox()
        var services = [ServiceGroupConfiguration.ServiceConfiguration(
            service: WorkerService(worker) { summary.set($0) }, successTerminationBehavior: .gracefullyShutdownGroup)]
        if let registry, let metricsPort {
            services.append(.init(service: MetricsServer.application(registry, host: metricsHost, port: metricsPort, logger: logger)))
        }
        if drain && progress && ProgressDisplay.isTerminal {
            services.append(.init(service: ProgressDisplay(worker: worker, conninfo: database.conninfo,
                                                           backends: backends.map(\.name))))
        }
        // SIGINT/SIGTERM: stop claiming, let jobs in flight finish within the grace period.
        // A second signal exits at once; unfinished jobs return to the queue when their leases expire.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let impatience = Task {
            var received = 0
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                received += 1
                if received == 1 {
                    logger.notice("received \(signal): finishing jobs in flight; send it again to exit at once")
                } else {
                    Foundation.exit(130)
                }
            }
        }
        defer { impatience.cancel() }
        try await group.run()
        let result = summary.value
        print("succeeded: \(result.succeeded)  dead: \(result.dead)  retry scheduled: \(result.retryScheduled)  lease lost: \(result.leaseLost)")
    }
}

/// The worker's summary, handed from its service to the command.
private final class SummaryBox: @unchecked Sendable {
    private let lock = NSLock()
    private var summary = WorkerSummary()
    var value: WorkerSummary { lock.withLock { summary } }
    func set(_ newValue: WorkerSummary) { lock.withLock { summary = newValue } }
}
