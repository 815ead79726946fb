import JobQueue
import Observability
import Postgres
import ServiceLifecycle

/// Samples the waiting and running jobs by service for the metrics (`discern_queue_depth`),
/// every 15 s.
struct DepthSampler: Service {
    let database: Database

    func run() async {
        await Periodic.run(every: 15) {
            if let depth = try? await database.withConnection({ try QueueDepth.live($0) }) {
                for row in depth { WorkerMetrics.queueDepth(service: row.service, state: row.state, row.jobs) }
            }
        }
    }
}
