import ArgumentParser
import BuildInfo
import ServiceClients
import CurlHTTP
import Foundation
import Logging
import JobQueue
import Observability
import Postgres
import ServiceLifecycle
import UnixSignals
import Worker

struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work", abstract: "Claim and process jobs until stopped (SIGINT/SIGTERM), or until the queue is drained.",
        discussion: "Services are configured by environment (or --config FILE): see docs/services.md and docs/configuration.md.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LogOptions
    @OptionGroup(title: "When a service is down") var breaker: BreakerSettingSpecs

    @Flag(help: "Exit when no job is left to claim, retry or finish.")
    var drain = false

    @Option(
        name: [.customLong("service"), .customLong("backend")],
        help:
            ArgumentHelp(
                "Serve only this service (repeatable), e.g. one Deployment per service. Default: $DISCERN_SERVICES (comma-separated), else every service configured.",
                valueName: "service")
    )
    var servedServices: [ServiceChoice] = []

    @Option(
        name: .customLong("path-root"),
        help:
            "A folder job files may be read from (repeatable). Default: $DISCERN_PATH_ROOTS (folders separated by ':'). Required: nothing outside is opened."
    )
    var pathRoots: [String] = []

    /// The worker's settings (WorkSettings.swift), each declared once.
    @OptionGroup var knobs: WorkSettingSpecs

    /// The primary service's URL as a flag (`--discerner-url`), named from the registry.
    @Option(
        name: .customLong(Services.discerner.name + "-url"),
        help: ArgumentHelp(
            "\(Services.discerner.title) base URL (sets $\(Services.discerner.urlVariable)).", valueName: Services.discerner.name + "-url"))
    var primaryServiceURL: String?

    @Flag(inversion: .prefixedNo, help: "With --drain at a terminal, show a progress bar with rate and ETA.")
    var progress = true

    func run() async throws {
        let logger = logging.makeLogger("discern.worker")
        var settings = try self.settings(logger: logger)
        let registry = settings.metricsPort != nil ? MetricsServer.bootstrap(version: BuildInfo.version) : nil
        var variables = Setting.environment
        if let primaryServiceURL { variables[Services.discerner.urlVariable] = primaryServiceURL }
        let environment = ServiceEnvironment(variables)
        guard !environment.configuredServiceNames.isEmpty else {
            throw SettingError(
                "no service is configured: set --\(Services.discerner.name)-url or \(Services.discerner.urlVariable) (other services: see docs/services.md)"
            )
        }
        // Three connections in all, whatever the concurrency (WorkerConnections).
        let connections = WorkerConnections(
            conninfo: database.conninfo, poolMode: settings.poolMode.poolMode, listenConninfo: settings.listenDatabaseURL)
        let gate = PostgresRateGate(database: connections.queue, logger: logger)
        let clients = try chosenClients(environment, gate: gate, concurrency: settings.worker.concurrency)
        // Settings checked, one look at the database before anything starts: a wrong URL or an
        // unmigrated database is one clear line and exit 69 now, not retries that look like
        // progress (the loops retry later failures, which are transient by then).
        // A server that was reached but dropped the connection or could not serve it yet (a
        // restart, a failover, too many connections, pg_terminate_backend) is weather, not a
        // wrong setting: that look is tried again for up to a minute.
        try await Self.lookOnce(at: connections.queue, logger: logger)
        do {
            settings.worker.webhooks = try WebhookSettings(environment)
        } catch {
            throw SettingError(error.description)
        }
        if !settings.worker.webhooks.destinations.isEmpty && settings.worker.webhooks.secret == nil {
            logger.notice("webhooks go unsigned: set DISCERN_WEBHOOK_SECRET so receivers can check they are discern's")
        }
        settings.worker.samplesQueueDepth = settings.metricsPort != nil
        settings.worker.version = BuildInfo.version
        logger.info("memory budget", metadata: ["max_mb_in_flight": "\(settings.worker.megabytesInFlight)", "from": "\(settings.budgetSource)"])
        let runtime = WorkerRuntime(connections: connections, clients: clients, configuration: settings.worker, logger: logger)

        // The metrics endpoint first, so it is shut down last; the progress bar last, first.
        var services = runtime.services
        if let registry, let port = settings.metricsPort {
            services.insert(
                runtime.watched(
                    .init(
                        service: MetricsServer.application(
                            registry, health: runtime.health, host: settings.metricsHost,
                            port: port, logger: logger))), at: 0)
        }
        if drain && progress && ProgressDisplay.isTerminal {
            services.append(
                runtime.watched(
                    .init(
                        service: ProgressDisplay(
                            runtime: runtime, gate: gate, database: connections.queue,
                            services: clients.map(\.name)))))
        }
        // SIGINT/SIGTERM: stop claiming, let jobs in flight finish within the grace period; then
        // the group cancels what is left, which is handed back to the queue.
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(settings.worker.graceSeconds)
        // WorkerRuntime's watch bounds the cancellation, and names what outlives it.
        group.maximumCancellationDuration = nil
        try await ServiceGroup(configuration: group).run()
        let result = await runtime.summary()
        print(
            "succeeded: \(result.succeeded)  dead: \(result.dead)  retry scheduled: \(result.retryScheduled)  lease lost: \(result.leaseLost)"
                + (result.handedBack > 0 ? "  handed back: \(result.handedBack)" : "")
                + (result.handedBackLater > 0 ? "  handed back while a service was down: \(result.handedBackLater)" : ""))
        // A drained run is a batch job: its exit status tells a script or systemd whether
        // everything went through (`discern jobs --state dead` lists what did not).
        if drain && result.dead > 0 { throw ExitCode(ExitStatus.someJobsDead) }
    }

    /// The first look at the database (`Migrator.requireCurrent`): a refused connection, a wrong
    /// password or an unmigrated database throws at once; a connection lost or a server not
    /// ready (SQLSTATE 57P, 53, 08) is tried again, for up to about a minute.
    private static func lookOnce(at database: Database, logger: Logger) async throws {
        var pause = 0.2, waited = 0.0
        while true {
            do {
                return try await database.withConnection { try Migrator.requireCurrent($0) }
            } catch let error as PostgresError where error.code != .connectionFailed && error.isRetryable && waited < 60 {
                logger.warning("the database dropped the first look; looking again", metadata: ["error": "\(error)"])
                try await Task.sleep(for: .seconds(pause))
                waited += pause
                pause = min(pause * 2, 5)
            }
        }
    }
}
