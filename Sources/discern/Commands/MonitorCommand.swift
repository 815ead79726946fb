import ArgumentParser
import Backends
import Foundation
import Logging
import Monitor
import Observability
import QueueReads
import ServiceLifecycle
import UnixSignals

struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Export the queue's state as Prometheus metrics, whether or not any worker runs (one per installation).",
        discussion: "Serves /metrics, /healthz and /readyz. The alerting rules in deploy/prometheus use its metrics. Runs fine as discern_reader.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LogOptions

    @Option(help: "Port for /metrics, 0-65535. Default: $DISCERN_MONITOR_PORT, else 9465.")
    var metricsPort: Int?

    @Option(help: "Address to listen on. Default: $DISCERN_METRICS_HOST, else 127.0.0.1.")
    var metricsHost: String?

    @Option(help: "Seconds between looks at the queue, 1-3600.")
    var interval: Double = 15

    @Option(help: "The end of the night's window for discern_plan_unfinished_jobs: HH:MM (the next one) or an ISO 8601 time. Default: $DISCERN_PLAN_UNTIL, else none.")
    var planUntil: String?

    func validate() throws {
        guard interval.isFinite, (1...3600).contains(interval) else { throw ValidationError("--interval must be from 1 to 3600 seconds") }
    }

    func run() async throws {
        let port = try Setting.integer(metricsPort, "metrics-port", env: "DISCERN_MONITOR_PORT", default: 9465, in: 0...65535)
        let host = metricsHost ?? Setting.present("DISCERN_METRICS_HOST") ?? "127.0.0.1"
        let logger = logging.makeLogger("discern.monitor")
        let registry = MetricsServer.bootstrap(version: Discern.configuration.version)
        let window = planUntil ?? Setting.present("DISCERN_PLAN_UNTIL")
        if let window, Plan.windowEnd(window) == nil {
            throw SettingError("--plan-until must be HH:MM or an ISO 8601 time, not \(window)")
        }
        var windowEnd: (@Sendable () -> Date?)?
        if let window { windowEnd = { Plan.windowEnd(window) } }
        let monitor = QueueMonitor(conninfo: database.conninfo, backends: Services.names, intervalSeconds: interval, windowEnd: windowEnd, logger: logger)
        let server = MetricsServer.application(registry, health: monitor.health, host: host, port: port, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: server), .init(service: monitor)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
