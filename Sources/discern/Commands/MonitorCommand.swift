import ArgumentParser
import BuildInfo
import ServiceClients
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

    @OptionGroup var metricsPort: SettingFlag<MonitorSettingSpecs.Port>
    @OptionGroup var metricsHost: SettingFlag<MonitorSettingSpecs.Host>
    @OptionGroup var interval: SettingFlag<MonitorSettingSpecs.Interval>

    @Option(
        help:
            "The end of the night's window for discern_plan_unfinished_jobs: HH:MM (the next one) or an ISO 8601 time. Default: $DISCERN_PLAN_UNTIL, else none."
    )
    var planUntil: String?

    func run() async throws {
        let (settings, _) = try SettingFlags.apply(self, to: MonitorSettingSpecs.Settings.defaults)
        let logger = logging.makeLogger("discern.monitor")
        let registry = MetricsServer.bootstrap(version: BuildInfo.version)
        let window = planUntil ?? Setting.present("DISCERN_PLAN_UNTIL")
        if let window, Plan.windowEnd(window) == nil {
            throw SettingError("--plan-until must be HH:MM or an ISO 8601 time, not \(window)")
        }
        var windowEnd: (@Sendable () -> Date?)?
        if let window { windowEnd = { Plan.windowEnd(window) } }
        let monitor = QueueMonitor(
            conninfo: database.conninfo, services: Services.names, intervalSeconds: settings.intervalSeconds, windowEnd: windowEnd, logger: logger)
        let server = MetricsServer.application(registry, health: monitor.health, host: settings.host, port: settings.port, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server), .init(service: monitor)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// `discern monitor`'s one-value settings, declared as `discern work`'s are (SettingFlag.swift).
enum MonitorSettingSpecs {
    struct Settings: SettingsRoot, Sendable {
        var port = 9465
        var host = "127.0.0.1"
        var intervalSeconds = 15.0
        static let defaults = Settings()
    }

    enum Port: IntegerSetting {
        static let flag = "metrics-port", variable: String? = "DISCERN_MONITOR_PORT", range = 0...65535
        static let summary = "Port for /metrics, 0-65535"
        static let keyPath = \Settings.port
    }

    enum Host: TextSetting {
        static let flag = "metrics-host", variable: String? = "DISCERN_METRICS_HOST"
        static let summary = "Address to listen on"
        static let keyPath = \Settings.host
    }

    enum Interval: NumberSetting {
        static let flag = "interval", variable: String? = nil, range = 1.0...3600
        static let summary = "Seconds between looks at the queue, 1-3600"
        static let keyPath = \Settings.intervalSeconds
    }
}
