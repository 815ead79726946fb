import JobQueue
import Logging
import Postgres

/// Completes finished jobs in batches: one statement writes many results and marks their jobs
/// succeeded. While one batch is being written, newly finished jobs gather for the next, so
/// under load batches grow by themselves and when idle a job is written at once.
actor CompletionBatcher {
    private let database: Database
    private let workerID: String
    private let maxBatch: Int
    private let logger: Logger
    private var pending: [(jobID: Int, result: JobResult, done: CheckedContinuation<Bool, any Error>)] = []
    private var writing = false

    init(database: Database, workerID: String, maxBatch: Int, logger: Logger) {
        self.database = database
        self.workerID = workerID
        self.maxBatch = max(1, maxBatch)
        self.logger = logger
    }

    /// Returns true when the result was stored, false when the lease was no longer ours.
    func complete(_ jobID: Int, _ result: JobResult) async throws -> Bool {
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
            let records = batch.map { (jobID: $0.jobID, result: $0.result) }
            let workerID = self.workerID
            do {
                let stored = try await Retrying.database(logger: logger, "complete jobs") {
                    try await self.database.withConnection { try JobQueue.complete($0, workerID: workerID, results: records) }
                }
                for entry in batch { entry.done.resume(returning: stored.contains(entry.jobID)) }
            } catch {
                for entry in batch { entry.done.resume(throwing: error) }
            }
        }
        writing = false
    }
}
