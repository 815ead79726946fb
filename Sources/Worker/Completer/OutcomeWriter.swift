import ErrorCodes
import JobQueue
import Logging
import Postgres

/// Writes outcomes to the queue through one connection. One bad result never costs another:
/// when PostgreSQL refuses a batch of results for its data (a value it cannot store), they are
/// written one by one and only the one it refuses is reported (its job then ends dead with the
/// server's reason). While the database is away (a restart, a failover, a full disk) a write is
/// tried again until it goes through: the jobs stay held, their leases are renewed once the
/// database is back, and no call is made twice for its sake. Any other failure (a schema not
/// migrated), or a shutdown meanwhile, leaves the jobs to their leases: they run again.
struct OutcomeWriter: Sendable {
    let database: Database
    let workerID: String
    let backoff: Backoff
    let logger: Logger

    enum Written: Sendable {
        case stored
        case leaseLost
        case refused(JobFailure)
        case unknown
    }

    func complete(_ results: [(job: Job, result: JobResult)]) async -> [Int: Written] {
        let workerID = self.workerID
        let records = results.map { (jobID: $0.job.id, result: $0.result) }
        do {
            let stored = try await Retrying.database(logger: logger, "complete jobs", attempts: .max) {
                try await self.database.withConnection { try JobQueue.complete($0, workerID: workerID, results: records) }
            }
            return Dictionary(uniqueKeysWithValues: results.map { ($0.job.id, stored.contains($0.job.id) ? .stored : .leaseLost) })
        } catch let error as PostgresError where error.isDataError {
            guard results.count > 1 else {
                WorkerMetrics.resultWriteFailed(reason: "refused")
                let message = "PostgreSQL refused this job's result (\(error.sqlState ?? "no SQLSTATE")): \(error.message.prefix(500))"
                return [results[0].job.id: .refused(JobFailure(.resultUnstorable, message: message))]
            }
            logger.warning(
                "PostgreSQL refused a batch of results; writing them one by one", metadata: ["results": "\(results.count)", "error": "\(error)"])
            var written: [Int: Written] = [:]
            for result in results { written.merge(await complete([result])) { $1 } }
            return written
        } catch {
            WorkerMetrics.resultWriteFailed(reason: "database", count: results.count)
            logger.error("could not write results; their jobs run again when the leases expire", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// Schedules a retry, or ends the job dead; nil when it could not be written.
    func fail(_ job: Job, _ failure: JobFailure) async -> OutcomeCounts.Outcome {
        let workerID = self.workerID, backoff = self.backoff
        do {
            let state = try await Retrying.database(logger: logger, "record a failure", attempts: .max) {
                try await self.database.withConnection { try JobQueue.fail($0, job: job, workerID: workerID, failure: failure, backoff: backoff) }
            }
            return switch state {
            case .dead: .dead;
            case .leaseLost: .leaseLost;
            case .retryScheduled: .retryScheduled
            }
        } catch {
            WorkerMetrics.resultWriteFailed(reason: "database")
            logger.error("could not record a failure; the job runs again when its lease expires", metadata: ["job": "\(job.id)", "error": "\(error)"])
            return .notRecorded
        }
    }

    /// Gives a job back while its service is unavailable, attempt not counted; false when it was
    /// no longer ours, or the database stayed away (its lease then runs out and it runs again).
    func handBackLater(_ job: Job, _ failure: JobFailure?, afterSeconds: Double) async -> Bool {
        let workerID = self.workerID
        do {
            return try await Retrying.database(logger: logger, "give a job back", attempts: .max) {
                try await self.database.withConnection {
                    try JobQueue.handBackLater($0, job: job, workerID: workerID, failure: failure, afterSeconds: afterSeconds)
                }
            }
        } catch {
            logger.error("could not give a job back; it returns when its lease expires", metadata: ["job": "\(job.id)", "error": "\(error)"])
            return false
        }
    }

    /// Gives jobs back without counting the attempt; returns how many were still ours.
    func handBack(_ ids: [Int]) async -> Int {
        let workerID = self.workerID
        do {
            return try await Retrying.database(logger: logger, "hand jobs back", attempts: .max) {
                try await self.database.withConnection { try JobQueue.handBack($0, jobIDs: ids, workerID: workerID) }
            }
        } catch {
            logger.error("could not hand jobs back; they return when their leases expire", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
