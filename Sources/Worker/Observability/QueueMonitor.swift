import Backends
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
    public let health: Health
    let logger: Logger

    public init(conninfo: String, intervalSeconds: Double, logger: Logger) {
        database = Database(conninfo: conninfo, name: "discern-monitor")
        self.intervalSeconds = intervalSeconds
        health = Health(heartbeatSeconds: intervalSeconds)
        self.logger = logger
    }

    public func run() async {
        await Periodic.run(every: intervalSeconds) {
            health.loopTurned()
            do {
                let overview = try await database.withConnection { try QueueStatus.overview($0, backends: Services.names) }
                for backend in overview { Self.export(backend) }
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
}
