import Backends
import Foundation
import JobQueue
import Logging
import Metrics
import Postgres
import ServiceLifecycle

/// `discern monitor`: exports the queue as PostgreSQL sees it, whoever is working. Workers'
/// own metrics vanish with the workers; the questions "is the backlog moving?" and "does
/// anyone serve this backend?" must be answerable when none is up. One monitor per
/// installation is enough (it only reads); it uses the reader role.
public struct QueueMonitor: Service {
    let database: Database
    let intervalSeconds: Double
    /// The end of the night's window, worked out afresh at each look ("06:00": the next one).
    let windowEnd: (@Sendable () -> Date?)?
    public let health: Health
    let logger: Logger

    public init(conninfo: String, intervalSeconds: Double, windowEnd: (@Sendable () -> Date?)? = nil, logger: Logger) {
        database = Database(conninfo: conninfo, name: "discern-monitor")
        self.intervalSeconds = intervalSeconds
        self.windowEnd = windowEnd
        health = Health(heartbeatSeconds: intervalSeconds)
        self.logger = logger
    }

    public func run() async {
        await Periodic.run(every: intervalSeconds) {
            health.loopTurned()
            do {
                let overview = try await database.withConnection { try QueueStatus.overview($0, backends: Services.names) }
                for backend in overview { Self.export(backend) }
                let end = windowEnd?()
                let plan = try await database.withConnection { try QueueStatus.plan($0, until: end.map { $0.formatted(.iso8601) }) }
                Self.export(plan, windowEnd: end)
                Gauge(label: "discern_queue_database_up").record(1)
                health.databaseReached()
            } catch {
                Gauge(label: "discern_queue_database_up").record(0)
                health.databaseFailed()
                logger.warning("cannot read the queue; will try again", metadata: ["error": "\(error)"])
            }
        }
        health.shuttingDown()
    }

    private static func export(_ queue: QueueStatus.Overview) {
        let backend = ("backend", queue.backend)
        for (state, jobs) in [("waiting", queue.waiting), ("scheduled", queue.scheduled), ("running", queue.running)] {
            Gauge(label: "discern_queue_jobs", dimensions: [backend, ("state", state)]).record(jobs)
        }
        Gauge(label: "discern_queue_oldest_waiting_seconds", dimensions: [backend]).record(queue.oldestWaitingSeconds)
        for (state, jobs) in [("succeeded", queue.succeededRecently), ("dead", queue.deadRecently)] {
            Gauge(label: "discern_queue_finished_recent", dimensions: [backend, ("state", state)]).record(jobs)
        }
        Gauge(label: "discern_queue_live_workers", dimensions: [backend]).record(queue.liveWorkers)
    }

    /// The plan's forecast (+Inf: never at this pace) and, with a window, what will not finish
    /// in it: what the DiscernNightWillNotFinish alert reads.
    private static func export(_ plan: [QueueStatus.PlanFigures], windowEnd: Date?) {
        for service in plan {
            let backend = ("backend", service.backend)
            Gauge(label: "discern_plan_finish_seconds", dimensions: [backend, ("bound", "early")]).record(service.finishEarlySeconds ?? .infinity)
            Gauge(label: "discern_plan_finish_seconds", dimensions: [backend, ("bound", "late")]).record(service.finishLateSeconds ?? .infinity)
            if let ratio = service.capUsedRatio {
                Gauge(label: "discern_budget_cap_used_ratio", dimensions: [backend]).record(ratio)
            }
            if let unfinished = service.willNotFinish {
                Gauge(label: "discern_plan_unfinished_jobs", dimensions: [backend]).record(unfinished)
            }
        }
        if let windowEnd { Gauge(label: "discern_plan_window_seconds").record(windowEnd.timeIntervalSinceNow) }
    }
}
