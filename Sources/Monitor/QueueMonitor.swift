import Foundation
import Logging
import Metrics
import Observability
import QueueReads
import ServiceLifecycle

/// `discern monitor`: exports the queue as PostgreSQL sees it, whoever is working. Workers'
/// own metrics vanish with the workers; the questions "is the backlog moving?" and "does
/// anyone serve this service?" must be answerable when none is up. One monitor per
/// installation is enough (it only reads, through the read model's `QueueGauges`); it uses the
/// reader role.
public struct QueueMonitor: Service {
    let conninfo: String
    /// The services to export, each at zero when idle (the registry's names).
    let services: [String]
    let intervalSeconds: Double
    /// The end of the night's window, worked out afresh at each look ("06:00": the next one).
    let windowEnd: (@Sendable () -> Date?)?
    public let health: Health
    let logger: Logger

    public init(conninfo: String, services: [String], intervalSeconds: Double, windowEnd: (@Sendable () -> Date?)? = nil, logger: Logger) {
        self.conninfo = conninfo
        self.services = services
        self.intervalSeconds = intervalSeconds
        self.windowEnd = windowEnd
        health = Health(heartbeatSeconds: intervalSeconds)
        self.logger = logger
    }

    public func run() async {
        // Opened at the first look that reaches PostgreSQL: a monitor started while the
        // database is down says so in its gauges instead of exiting.
        var reader: QueueReader?
        var saidBlind = false
        await Periodic.run(every: intervalSeconds) {
            health.loopTurned()
            do {
                let queue: QueueReader
                if let reader {
                    queue = reader
                } else {
                    queue = try await QueueReader(conninfo: conninfo, connections: 1, name: "discern-monitor")
                    reader = queue
                }
                let end = windowEnd?()
                let gauges = try await queue.gauges(services: services, until: end)
                gauges.queues.forEach(Self.export)
                Self.export(gauges.forecasts, windowEnd: end)
                // What DiscernLongTransaction watches: a snapshot held for long slows every claim.
                if let held = gauges.oldestSnapshotSeconds {
                    Gauge(label: "discern_database_oldest_snapshot_seconds").record(held)
                } else if !saidBlind {
                    saidBlind = true
                    logger.warning(
                        "cannot see when other roles' transactions began, so DiscernLongTransaction cannot fire: GRANT pg_read_all_stats TO the owner of the discern schema (docs/operations.md, Install)"
                    )
                }
                Gauge(label: "discern_queue_database_up").record(1)
                health.databaseReached()
            } catch {
                Gauge(label: "discern_queue_database_up").record(0)
                // Unknown while unreachable: DiscernMonitorDatabaseDown speaks for it, not a stale value.
                Gauge(label: "discern_database_oldest_snapshot_seconds").record(0)
                health.databaseFailed()
                logger.warning("cannot read the queue; will try again", metadata: ["error": "\(error)"])
            }
        }
        health.shuttingDown()
    }

    private static func service(_ name: String) -> [(String, String)] { MetricLabels.service(name) }

    private static func export(_ queue: QueueGauges.Queue) {
        let service = Self.service(queue.service)
        for (state, jobs) in [("waiting", queue.waiting), ("scheduled", queue.scheduled), ("running", queue.running)] {
            Gauge(label: "discern_queue_jobs", dimensions: service + [("state", state)]).record(jobs)
        }
        Gauge(label: "discern_queue_oldest_waiting_seconds", dimensions: service).record(queue.oldestWaitingSeconds)
        for (state, jobs) in [("succeeded", queue.succeededRecently), ("dead", queue.deadRecently)] {
            Gauge(label: "discern_queue_finished_recent", dimensions: service + [("state", state)]).record(jobs)
        }
        Gauge(label: "discern_queue_live_workers", dimensions: service).record(queue.liveWorkers)
        // The breaker the workers share: what DiscernServiceUnavailable watches.
        Gauge(label: "discern_service_unavailable", dimensions: service).record(queue.unavailableSeconds == nil ? 0 : 1)
        Gauge(label: "discern_service_unavailable_seconds", dimensions: service).record(queue.unavailableSeconds ?? 0)
        Gauge(label: "discern_service_probes_failed", dimensions: service).record(queue.probesFailed)
    }

    /// The plan's forecast (+Inf: never at this pace) and, with a window, what will not finish
    /// in it: what the DiscernNightWillNotFinish alert reads.
    private static func export(_ forecasts: [QueueGauges.Forecast], windowEnd: Date?) {
        for service in forecasts {
            let label = Self.service(service.service)
            Gauge(label: "discern_plan_finish_seconds", dimensions: label + [("bound", "early")]).record(service.finishEarlySeconds ?? .infinity)
            Gauge(label: "discern_plan_finish_seconds", dimensions: label + [("bound", "late")]).record(service.finishLateSeconds ?? .infinity)
            if let ratio = service.capUsedRatio {
                Gauge(label: "discern_budget_cap_used_ratio", dimensions: label).record(ratio)
            }
            if let unfinished = service.willNotFinish {
                Gauge(label: "discern_plan_unfinished_jobs", dimensions: label).record(unfinished)
            }
        }
        if let windowEnd { Gauge(label: "discern_plan_window_seconds").record(windowEnd.timeIntervalSinceNow) }
    }
}
