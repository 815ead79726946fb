import JobQueue
import Logging
import Postgres
import ServiceLifecycle

/// Keeps this worker known and its jobs its own: registers it (`discern.workers`), then every
/// `heartbeatSeconds` renews its heartbeat and the leases of the jobs it holds. A job whose
/// lease was taken meanwhile (cancelled, rescued) is abandoned. Shut down after the executor,
/// so leases stay alive while jobs in flight finish; it then marks the worker stopped.
struct Heartbeat: Service {
    let database: Database
    let entry: WorkerRegistry.Entry
    let leaseSeconds: Double
    let inFlight: InFlight
    let abandonments: Abandonments
    let health: Health
    let logger: Logger

    func run() async {
        let entry = self.entry
        do {
            try await Retrying.database(logger: logger, "register the worker") {
                try await self.database.withConnection { try WorkerRegistry.register($0, entry) }
            }
            health.databaseReached()
        } catch {
            health.databaseFailed()
            logger.warning("could not register the worker; it works unregistered", metadata: ["error": "\(error)"])
        }
        await Periodic.run(every: entry.heartbeatSeconds, pauseFirst: true) {
            health.loopTurned()
            await beat()
        }
        _ = try? await database.withConnection { try WorkerRegistry.stopped($0, workerID: entry.id) }
    }

    private func beat() async {
        let ids = await inFlight.ids, workerID = entry.id, lease = leaseSeconds
        do {
            let kept = try await database.withConnection {
                try WorkerRegistry.heartbeat($0, workerID: workerID, jobIDs: ids, leaseSeconds: lease)
            }
            health.databaseReached()
            // Jobs finished meanwhile, or whose outcome is being written, are not lost; only
            // those still held with nothing on its way are.
            let held = await inFlight.heldAndOpen
            let lost = Set(ids).subtracting(kept).intersection(held).sorted()
            if !lost.isEmpty {
                logger.warning("jobs in flight were cancelled or rescued; abandoning them", metadata: ["jobs": "\(lost)"])
                abandonments.abandon(lost)
            }
        } catch {
            health.databaseFailed()
            logger.warning("heartbeat failed; will try again", metadata: ["error": "\(error)"])
        }
    }
}
