import JobQueue
import Logging
import Postgres

/// Renews the leases of in-flight jobs and rescues other workers' expired ones.
actor LeaseKeeper {
    private let database: Database
    private let configuration: WorkerConfiguration
    private let logger: Logger
    private let onLost: @Sendable ([Int]) -> Void
    private var held: Set<Int> = []

    /// - Parameter onLost: told which in-flight jobs are no longer ours (cancelled or rescued).
    init(database: Database, configuration: WorkerConfiguration, logger: Logger, onLost: @escaping @Sendable ([Int]) -> Void) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
        self.onLost = onLost
    }

    func hold(_ jobID: Int) { held.insert(jobID) }
    func release(_ jobID: Int) { held.remove(jobID) }

    /// Until cancelled: every third of a lease, renew ours and rescue expired ones.
    func keepAlive() async {
        let interval = max(0.5, configuration.leaseSeconds / 3)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval))
            guard !Task.isCancelled else { return }
            let ids = Array(held), workerID = configuration.workerID, lease = configuration.leaseSeconds
            do {
                let (kept, rescued) = try await database.withConnection { connection in
                    (try JobQueue.heartbeat(connection, jobIDs: ids, workerID: workerID, leaseSeconds: lease),
                     try JobQueue.rescueExpiredLeases(connection))
                }
                // Jobs finished meanwhile are not lost; only those still held are.
                let lost = Set(ids).subtracting(kept).intersection(held).sorted()
                if !lost.isEmpty {
                    logger.warning("jobs in flight were cancelled or rescued; abandoning them", metadata: ["jobs": "\(lost)"])
                    onLost(lost)
                }
                if rescued > 0 { logger.info("rescued jobs with expired leases", metadata: ["count": "\(rescued)"]) }
            } catch {
                logger.warning("lease heartbeat failed; will try again", metadata: ["error": "\(error)"])
            }
        }
    }
}
