import ArgumentParser
import Backends
import CurlHTTP
import Foundation
import Imaging
import Logging
import JobQueue
import Postgres
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

    @Option(name: .customLong("path-root"),
            help: "A folder job files may be read from (repeatable). Default: $DISCERN_PATH_ROOTS (folders separated by ':'). Required: nothing outside is opened.")
    var pathRoots: [String] = []

    @Option(help: "Calls to services in flight at once, 1-1024 (hides network latency). Default: $DISCERN_CONCURRENCY, else 16.")
    var concurrency: Int?

    @Option(help: "Threads preparing images, 1-256. Default: $DISCERN_PREPARE_THREADS, else the number of cores.")
    var prepareThreads: Int?

    @Option(help: "Megabytes of prepared images held at once, waiting for or in a call, 1-65536. Default: $DISCERN_MAX_MB_IN_FLIGHT, else 64.")
    var maxMBInFlight: Int?

    @Option(help: "Image Discerner base URL (sets $DISCERN_DISCERNER_URL).")
    var discernerURL: String?

    @Option(help: "Seconds a claimed job stays ours without a heartbeat (renewed every 10 s), 1-3600. Default: $DISCERN_LEASE_SECONDS, else 30.")
    var leaseSeconds: Double?

    @Option(help: "On SIGTERM/SIGINT, seconds jobs in flight may take before they are handed back to the queue, 0-3600.")
    var graceSeconds: Double?

    @Option(help: "Seconds between looks at the queue when no notification arrives, 0.05-3600 (LISTEN/NOTIFY is the fast path).")
    var pollSeconds: Double?

    @Option(help: "Seconds before a truncated file (maybe still being copied) is tried once more, 1-86400. Default: 300.")
    var truncatedRetrySeconds: Double?

    @Option(help: "Serve Prometheus metrics on this port, 0-65535 (0 picks one; it is logged). Default: $DISCERN_METRICS_PORT, else off.")
    var metricsPort: Int?

    @Option(help: "Address the metrics endpoint listens on. Default: $DISCERN_METRICS_HOST, else 127.0.0.1.")
    var metricsHost: String?

    @Flag(inversion: .prefixedNo, help: "With --drain at a terminal, show a progress bar with rate and ETA.")
    var progress = true

    /// Every setting, checked once: flags, then the environment, then the defaults.
    struct Settings {
        var roots: PathRoots
        var concurrency: Int
        var prepareThreads: Int
        var maxMBInFlight: Int
        var leaseSeconds: Double
        var graceSeconds: Double
        var pollSeconds: Double
        var truncatedRetrySeconds: Double
        var metricsPort: Int?
        var metricsHost: String
    }

    func settings() throws -> Settings {
        let rootList = pathRoots.isEmpty ? (Setting.present("DISCERN_PATH_ROOTS").map { [$0] } ?? []) : pathRoots
        guard !rootList.isEmpty else {
            throw SettingError("set the folders job files may be read from: --path-root /photos (repeatable) or DISCERN_PATH_ROOTS=/photos:/archive")
        }
        let roots: PathRoots
        do { roots = try PathRoots(rootList.flatMap { $0.split(separator: ":").map(String.init) }) } catch { throw SettingError(error.message) }
        let port: Int? = metricsPort != nil || Setting.present("DISCERN_METRICS_PORT") != nil
            ? try Setting.integer(metricsPort, "metrics-port", env: "DISCERN_METRICS_PORT", default: 0, in: 0...65535) : nil
        return Settings(
            roots: roots,
            concurrency: try Setting.integer(concurrency, "concurrency", env: "DISCERN_CONCURRENCY", default: 16, in: 1...1024),
            prepareThreads: try Setting.integer(prepareThreads, "prepare-threads", env: "DISCERN_PREPARE_THREADS",
                                                default: ProcessInfo.processInfo.activeProcessorCount, in: 1...256),
            maxMBInFlight: try Setting.integer(maxMBInFlight, "max-mb-in-flight", env: "DISCERN_MAX_MB_IN_FLIGHT", default: 64, in: 1...65536),
            leaseSeconds: try Setting.number(leaseSeconds, "lease-seconds", env: "DISCERN_LEASE_SECONDS", default: 30, in: 1...3600),
            graceSeconds: try Setting.number(graceSeconds, "grace-seconds", env: "DISCERN_GRACE_SECONDS", default: 30, in: 0...3600),
            pollSeconds: try Setting.number(pollSeconds, "poll-seconds", env: "DISCERN_POLL_SECONDS", default: 5, in: 0.05...3600),
            truncatedRetrySeconds: try Setting.number(truncatedRetrySeconds, "truncated-retry-seconds", default: 300, in: 1...86400),
            metricsPort: port,
            metricsHost: metricsHost ?? Setting.present("DISCERN_METRICS_HOST") ?? "127.0.0.1")
    }

    func run() async throws {
        let settings = try self.settings()
        let logger = logging.makeLogger("discern.worker")
        let registry = settings.metricsPort != nil ? MetricsServer.bootstrap() : nil
        var variables = ProcessInfo.processInfo.environment
        if let discernerURL { variables["DISCERN_DISCERNER_URL"] = discernerURL }
        let environment = BackendEnvironment(variables)
        guard !environment.configuredBackendNames.isEmpty else {
            throw SettingError("no backend is configured: set --discerner-url or DISCERN_DISCERNER_URL (other services: see docs/backends.md)")
        }
        // One look before anything starts: a wrong URL or an unmigrated database is one clear
        // line and exit 69 now, not retries that look like progress (the loops retry later
        // failures, which are transient by then).
        try await Database(conninfo: database.conninfo, name: "discern-preflight").withConnection { try Migrator.requireCurrent($0) }
        let gate = PostgresRateGate(conninfo: database.conninfo, logger: logger)
        let backends: [any AnalysisBackend]
        do {
            backends = try environment.backends(gate: gate, maxConcurrentCalls: settings.concurrency)
        } catch {
            throw SettingError(error.description)
        }
        var configuration = WorkerConfiguration(
            pathRoots: settings.roots, concurrency: settings.concurrency, prepareThreads: settings.prepareThreads,
            maxBytesInFlight: settings.maxMBInFlight << 20, leaseSeconds: settings.leaseSeconds,
            pollIntervalSeconds: settings.pollSeconds, drain: drain, graceSeconds: settings.graceSeconds)
        configuration.truncatedRetrySeconds = settings.truncatedRetrySeconds
        configuration.version = Discern.configuration.version.isEmpty ? "dev" : Discern.configuration.version
        let runtime = WorkerRuntime(conninfo: database.conninfo, backends: backends, configuration: configuration, logger: logger)

        // The metrics endpoint first, so it is shut down last; the progress bar last, first.
        var services = runtime.services
        if let registry, let port = settings.metricsPort {
            services.insert(.init(service: MetricsServer.application(registry, host: settings.metricsHost, port: port, logger: logger)), at: 0)
        }
        if drain && progress && ProgressDisplay.isTerminal {
            services.append(.init(service: ProgressDisplay(runtime: runtime, gate: gate, conninfo: database.conninfo,
                                                           backends: backends.map(\.name))))
        }
        // SIGINT/SIGTERM: stop claiming, let jobs in flight finish within the grace period; then
        // the group cancels what is left, which is handed back to the queue.
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(settings.graceSeconds)
        group.maximumCancellationDuration = .seconds(30)
        try await ServiceGroup(configuration: group).run()
        let result = await runtime.summary()
        print("succeeded: \(result.succeeded)  dead: \(result.dead)  retry scheduled: \(result.retryScheduled)  lease lost: \(result.leaseLost)"
              + (result.handedBack > 0 ? "  handed back: \(result.handedBack)" : ""))
        // A drained run is a batch job: its exit status tells a script or systemd whether
        // everything went through (`discern jobs --state dead` lists what did not).
        if drain && result.dead > 0 { throw ExitCode(ExitStatus.someJobsDead) }
    }
}
