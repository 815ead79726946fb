import Postgres

/// The queue's operations. Each takes a `Connection` and blocks, so callers run them on the
/// connection's dedicated thread (`Database.withConnection`).
public enum JobQueue {
    /// Leases up to `limit` claimable jobs for `backends` to `workerID` for `leaseSeconds`.
    public static func claim(_ connection: Connection, workerID: String, backends: [String], limit: Int, leaseSeconds: Double) throws -> [Job] {
        let rows = try connection.query(QueueSQL.claim, [workerID, limit, leaseSeconds, backends])
        return try rows.map(Job.init(row:)).sorted { $0.id < $1.id }
    }

    /// Completes the job and stores its one result. Returns false when the lease was no
    /// longer ours; then nothing was written.
    @discardableResult
    public static func complete(_ connection: Connection, job: Job, workerID: String, result: JobResult) throws -> Bool {
        try complete(connection, workerID: workerID, results: [(job.id, result)]).contains(job.id)
    }

    /// Completes many jobs in one statement; returns the ids completed (those still ours).
    @discardableResult
    public static func complete(_ connection: Connection, workerID: String, results: [(jobID: Int, result: JobResult)]) throws -> Set<Int> {
        guard !results.isEmpty else { return [] }
        let records = ResultRecords.json(results)
        return Set(try connection.query(QueueSQL.complete, [workerID, records]).map { try $0.int("job_id") })
    }

    /// Records a failed attempt: a retry after `backoff` (at least the service's Retry-After),
    /// or `dead` when the failure is permanent or no attempt is left.
    @discardableResult
    public static func fail(_ connection: Connection, job: Job, workerID: String, failure: JobFailure,
                            backoff: Backoff = Backoff()) throws -> FailureOutcome {
        let delay = backoff.delay(afterAttempt: job.attempt, retryAfter: failure.retryAfterSeconds)
        let rows = try connection.query(QueueSQL.fail, [
            job.id, workerID, failure.retryable, delay, failure.kind, String(failure.message.prefix(2000)),
        ])
        guard let state = try rows.first?.string("state") else { return .leaseLost }
        return FailureOutcome(rawValue: state) ?? .dead
    }

    /// Extends the leases of the given jobs; returns the ids still ours.
    public static func heartbeat(_ connection: Connection, jobIDs: [Int], workerID: String, leaseSeconds: Double) throws -> Set<Int> {
        guard !jobIDs.isEmpty else { return [] }
        let rows = try connection.query(QueueSQL.heartbeat, [jobIDs, workerID, leaseSeconds])
        return Set(try rows.map { try $0.int("id") })
    }

    /// Returns running jobs to the queue without counting the attempt; returns how many.
    @discardableResult
    public static func release(_ connection: Connection, jobIDs: [Int], workerID: String) throws -> Int {
        guard !jobIDs.isEmpty else { return 0 }
        return try connection.query(QueueSQL.release, [jobIDs, workerID]).count
    }

    /// Rescues jobs whose lease expired; returns how many.
    @discardableResult
    public static func rescueExpiredLeases(_ connection: Connection) throws -> Int {
        try connection.query(QueueSQL.rescueExpired).count
    }

    /// Enqueues one job per path, a thousand paths per statement, all in one transaction;
    /// returns the count.
    @discardableResult
    public static func enqueue(_ connection: Connection, paths: [String], backend: String = "discerner",
                               action: String = "analyze", batch: String? = nil, priority: Int = 0,
                               paramsJSON: String = "{}") throws -> Int {
        try connection.transaction { connection in
            var added = 0
            for start in stride(from: 0, to: paths.count, by: 1000) {
                let chunk = Array(paths[start..<min(start + 1000, paths.count)])
                added += try connection.query(QueueSQL.enqueueMany, [chunk, backend, action, priority, batch, paramsJSON]).first?.int("added") ?? 0
            }
            return added
        }
    }

    /// What could still produce work, for `work --drain`.
    public struct PendingWork: Sendable {
        public let ready: Int
        public let retrying: Int
        public let running: Int
        public var isEmpty: Bool { ready == 0 && retrying == 0 && running == 0 }
    }

    public static func pendingWork(_ connection: Connection, backends: [String]) throws -> PendingWork {
        guard let row = try connection.query(QueueSQL.pendingWork, [backends]).first else { return PendingWork(ready: 0, retrying: 0, running: 0) }
        return PendingWork(ready: try row.int("ready"), retrying: try row.int("retrying"), running: try row.int("running"))
    }

}
