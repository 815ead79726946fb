import JobQueue
import Logging
import Postgres

/// Completes finished jobs in batches: one statement writes many results and marks their jobs
/// succeeded. While one batch is being written, newly finished jobs gather for the next, so
/// under load batches grow by themselves and when idle a job is written at once.
///
/// One bad result never costs another: when PostgreSQL refuses a batch for its data (a value
/// it cannot store), its results are written one by one, and only the one it refuses is
/// reported as refused (its job then ends dead with the server's reason). Any other failure
/// (a lost connection, a schema not migrated) leaves the jobs to their leases: they run again.
actor CompletionBatcher {
    enum Outcome: Sendable {
        case stored
        /// The lease was no longer ours: nothing was written.
        case leaseLost
        /// PostgreSQL refused this result itself.
        case refused(PostgresError)
    }

    private let database: Database
    private let workerID: String
    private let maxBatch: Int
    private let logger: Logger
    private var pending: [(jobID: Int, result: JobResult, done: CheckedContinuation<Outcome, any Error>)] = []
    private var writing = false

    init(database: Database, workerID: String, maxBatch: Int, logger: Logger) {
        self.database = database
        self.workerID = workerID
        self.maxBatch = max(1, maxBatch)
        self.logger = logger
    }

    /// Throws only when the database stays unreachable (the lease then expires and the job runs
    /// again: nothing is lost).
    func complete(_ jobID: Int, _ result: JobResult) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            pending.append((jobID, result, continuation))
            if !writing { Task { await self.drain() } }
            writing = true
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(maxBatch))
            pending.removeFirst(batch.count)
            let outcomes = await write(batch.map { (jobID: $0.jobID, result: $0.result) })
            for (entry, outcome) in zip(batch, outcomes) { entry.done.resume(with: outcome) }
        }
        writing = false
    }

    /// One statement for the whole batch; row by row when PostgreSQL refuses the batch itself.
    private func write(_ records: [(jobID: Int, result: JobResult)]) async -> [Result<Outcome, any Error>] {
        let workerID = self.workerID
        do {
            let stored = try await Retrying.database(logger: logger, "complete jobs") {
                try await self.database.withConnection { try JobQueue.complete($0, workerID: workerID, results: records) }
            }
            return records.map { .success(stored.contains($0.jobID) ? .stored : .leaseLost) }
        } catch let error as PostgresError where error.isDataError {
            guard records.count > 1 else { return [.success(.refused(error))] }
            logger.warning("PostgreSQL refused a batch of results; writing them one by one", metadata: [
                "results": "\(records.count)", "error": "\(error)",
            ])
            var outcomes: [Result<Outcome, any Error>] = []
            for record in records { outcomes += await write([record]) }
            return outcomes
        } catch {
            return records.map { _ in .failure(error) }
        }
    }
}
