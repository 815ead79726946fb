import ErrorCodes
import Postgres
import SQLSchema

/// The queue's operations. Each takes a `Connection` and blocks, so callers run them on the
/// connection's dedicated thread (`Database.withConnection`).
public enum JobQueue {
    /// Leases up to `limit` claimable jobs for `services` to `workerID` for `leaseSeconds`.
    /// `oldestFirst` of them are the longest-waiting jobs whatever their priority (the worker's
    /// `FairShare`: no priority starves the rest); the others go by priority.
    /// `holdingNothing`: the worker has no job in hand, so it may take a job that must run alone
    /// (`Job.runsAlone`); when one is waiting, that job is all it gets.
    public static func claim(
        _ connection: Connection, workerID: String, services: [String], limit: Int, leaseSeconds: Double,
        oldestFirst: Int = 0, holdingNothing: Bool = false
    ) throws -> [Job] {
        let rows = try connection.run(
            Queries.Jobs.Claim(
                worker: workerID, wanted: limit, leaseSeconds: leaseSeconds, services: BinaryArray(services), holdingNothing: holdingNothing,
                oldestFirst: min(max(0, oldestFirst), limit)))
        return rows.map(Job.init(claimed:)).sorted { $0.id < $1.id }
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
        let statement = CompletionBatch.statement(worker: workerID, results.map { (jobID: $0.jobID, result: $0.result) })
        return Set(try connection.run(statement).map(\.jobId))
    }

    /// Records a failed attempt as `FailureDecision` decides: a retry after `backoff` (at least
    /// the service's Retry-After), the attempt handed back, or `dead`. `.leaseLost` when the job
    /// was no longer this worker's (or changed under the decision): then nothing was written.
    @discardableResult
    public static func fail(
        _ connection: Connection, job: Job, workerID: String, failure: JobFailure,
        backoff: Backoff = Backoff()
    ) throws -> FailureOutcome {
        guard let row = try connection.run(Queries.Jobs.FailureFacts(job: job.id, worker: workerID)).first else { return .leaseLost }
        let facts = FailureDecision.Facts(
            kind: failure.kind, outage: failure.outage, attempts: row.attempts, maxAttempts: row.maxAttempts, handBacks: row.handBacks,
            backoffSeconds: backoff.delay(afterAttempt: job.attempt, retryAfter: failure.retryAfterSeconds),
            maxBackoffSeconds: backoff.maxSeconds)
        let decision = try FailureDecision.decide(facts) {
            try connection.run(Queries.Jobs.ServiceCompletedSince(since: row.failingSince, service: row.service, job: job.id)).first?.completed
                ?? false
        }
        let recorded = try connection.run(
            Queries.Jobs.RecordFailure(
                job: job.id, worker: workerID, attemptsRead: facts.attempts, handBacksRead: facts.handBacks, attempts: decision.attemptsAfter,
                handBacks: decision.handBacksAfter, retryAfterSeconds: decision.retryAfterSeconds, kind: failure.kind.code,
                message: String(failure.message.prefix(2000)), note: decision.note, spent: decision.spent))
        guard let state = recorded.first?.state else { return .leaseLost }
        return FailureOutcome(rawValue: state) ?? .dead
    }

    /// Extends the leases of the given jobs; returns the ids still ours.
    public static func heartbeat(_ connection: Connection, jobIDs: [Int], workerID: String, leaseSeconds: Double) throws -> Set<Int> {
        guard !jobIDs.isEmpty else { return [] }
        return Set(try connection.run(Queries.Jobs.Heartbeat(jobs: BinaryArray(jobIDs), worker: workerID, leaseSeconds: leaseSeconds)).map(\.id))
    }

    /// Fails the running jobs leased to `workerID` whose leases expired although it no longer
    /// holds them (`holding`: the ones it does): the attempt is spent (dead once none is left);
    /// returns their ids.
    /// Another worker's rescuer never takes a live worker's jobs, and this worker renews no lease
    /// for a job it let go: without this, such a job (its outcome left unwritten, or a bug that
    /// lost it) stayed running for as long as the worker lived.
    public static func failOrphans(_ connection: Connection, workerID: String, holding: [Int]) throws -> [Int] {
        try connection.run(Queries.Jobs.FailOrphans(worker: workerID, holding: BinaryArray(holding), kind: FailureKind.outcomeUnrecorded.code)).map(
            \.id)
    }

    /// The W3C traceparents stored with these jobs (migration 0033), by job: read after a claim
    /// while tracing is on, so the claim itself never pays for them.
    public static func traceparents(_ connection: Connection, of jobIDs: [Int]) throws -> [Int: String] {
        guard !jobIDs.isEmpty else { return [:] }
        let rows = try connection.run(Queries.Jobs.Traceparents(jobs: BinaryArray(jobIDs)))
        return Dictionary(rows.map { ($0.id, $0.traceparent) }) { first, _ in first }
    }

    /// Hands running jobs back at once (the worker stops): the attempt is not spent; returns how many.
    @discardableResult
    public static func handBack(_ connection: Connection, jobIDs: [Int], workerID: String) throws -> Int {
        guard !jobIDs.isEmpty else { return 0 }
        return try connection.run(Queries.Jobs.HandBack(jobs: BinaryArray(jobIDs), worker: workerID)).count
    }

    /// Hands a running job back while its service is unavailable: attempt not spent, claimable
    /// again in `afterSeconds`, and never before the service's Retry-After (a breaker closed a
    /// second later must not send the job straight back to a service that asked it to wait);
    /// `failure` (what the call said) goes into its history. False when the lease was no longer ours.
    @discardableResult
    public static func handBackLater(
        _ connection: Connection, job: Job, workerID: String, failure: JobFailure?, afterSeconds: Double = 0
    ) throws -> Bool {
        let delay = max(0, min(max(afterSeconds, failure?.retryAfterSeconds ?? 0), 86_400))
        return try !connection.run(
            Queries.Jobs.HandBackLater(
                job: job.id, worker: workerID, afterSeconds: delay, kind: failure?.kind.code,
                message: failure.map { String($0.message.prefix(2000)) },
                probe: job.isProbe)
        ).isEmpty
    }

    /// Where the console listens for changes its pages show (sql/functions/notify_change.sql).
    public static let changesChannel = "discern_changes"

    /// Tells listening consoles that jobs changed (a worker's outcomes), outside any completion's
    /// transaction.
    public static func announceChanges(_ connection: Connection) throws {
        try connection.run(Queries.Workers.AnnounceChanges(channel: changesChannel))
    }

    /// Asks the database for nothing: throws when it does not answer.
    public static func ping(_ connection: Connection) throws {
        try connection.execute(Queries.Workers.Ping())
    }

    /// Rescues the jobs of workers that are gone (`Queries.Jobs.rescue`, sql/queries/jobs.sql, says how that is known),
    /// except those of `rescuer` (the worker asking, alive by asking; nil for a maintenance
    /// task). The server is recorded first when it is new (a restart, a crash recovery, a
    /// failover): its workers are then awaited while they reconnect.
    @discardableResult
    public static func rescue(_ connection: Connection, rescuer: String? = nil) throws -> RescueRound {
        try noteDatabaseServer(connection)
        let row = try connection.run(
            Queries.Jobs.Rescue(rescuer: rescuer, crashedKind: FailureKind.workerCrashed.code, expiredKind: FailureKind.leaseExpired.code)
        ).first
        return RescueRound(rescued: row?.rescued ?? 0, awaitedWorkers: row?.awaited ?? 0, awaitedSeconds: row?.awaitedSeconds)
    }

    /// What one rescue did, and whom it waits for.
    public struct RescueRound: Sendable, Equatable {
        /// Jobs handed back (or ended dead) because their workers are gone.
        public let rescued: Int
        /// Workers holding jobs that have not been heard from since the database server became
        /// the one it is now, and still have time to reconnect: their jobs are left be.
        public let awaitedWorkers: Int
        /// Seconds until the last of them runs out of that time.
        public let awaitedSeconds: Double?
    }

    /// Records the database server as it is now, when a rescuer has not seen it yet: a restart,
    /// a crash recovery (the server's shared statistics are reset then) or a failover to another
    /// server makes every session new, and for a while after a live worker's lock may be
    /// missing only because it has not reconnected yet. Written only when it changed.
    static func noteDatabaseServer(_ connection: Connection) throws {
        if try connection.run(Queries.Jobs.DatabaseEpoch()).first?.same == true { return }
        try connection.execute(Queries.Jobs.NewDatabaseEpoch())
    }

    /// Marks the file of `job`, which runs alone, as being prepared by `workerID` (a crash now is
    /// the file's doing), or clears the mark once it is prepared.
    public static func markPreparingAlone(_ connection: Connection, jobID: Int, workerID: String, preparing: Bool) throws {
        if preparing {
            try connection.run(Queries.Jobs.MarkPreparing(job: jobID, worker: workerID))
        } else {
            try connection.run(Queries.Jobs.ClearPreparing(job: jobID, worker: workerID))
        }
    }

    /// Enqueues one job per file in one transaction, streamed in with COPY. A file with a unique
    /// key is skipped when a job with that key is waiting, running or succeeded, or when a result
    /// with that key exists (the job may have been pruned since). Returns how many were added.
    @discardableResult
    public static func enqueue(
        _ connection: Connection, files: [EnqueuedFile], service: String,
        action: String = "analyze", batch: String? = nil, priority: Int = 0,
        paramsJSON: String = "{}"
    ) throws -> Int {
        try connection.transaction { connection in
            try enqueueInTransaction(
                connection, files: files, service: service, action: action, batch: batch, priority: priority, paramsJSON: paramsJSON)
        }
    }

    /// `enqueue`'s work inside a transaction the caller holds (and may write more in).
    public static func enqueueInTransaction(
        _ connection: Connection, files: [EnqueuedFile], service: String, action: String, batch: String?, priority: Int, paramsJSON: String
    ) throws -> Int {
        try connection.executeScript(Queries.Enqueue.createStaging)
        try connection.copyIn(
            Queries.Enqueue.copyStaging,
            rows: files.lazy.map { [$0.path, $0.uniqueKey, $0.perceptualHash.map(String.init), $0.nearDuplicateOf, $0.traceparent] })
        let batchID = try batch.flatMap { try connection.run(Queries.Enqueue.BatchID(name: $0)).first?.id }
        return try connection.execute(
            Queries.Jobs.EnqueueStaged(batch: batchID, service: service, action: action, priority: priority, params: paramsJSON))
    }

    /// Whether a job that must run alone (`Job.runsAlone`) has waited `seconds` or more for a
    /// worker holding nothing.
    public static func aloneJobWaiting(_ connection: Connection, services: [String], forSeconds seconds: Double) throws -> Bool {
        try connection.run(Queries.Jobs.AloneJobWaiting(services: BinaryArray(services), waitedSeconds: seconds)).first?.waiting ?? false
    }

    /// What could still produce work, for `work --drain`.
    public struct PendingWork: Sendable {
        public let ready: Int
        public let retrying: Int
        public let running: Int
        public var isEmpty: Bool { ready == 0 && retrying == 0 && running == 0 }
    }

    public static func pendingWork(_ connection: Connection, services: [String]) throws -> PendingWork {
        guard let row = try connection.run(Queries.Jobs.PendingWork(services: BinaryArray(services))).first else {
            return PendingWork(ready: 0, retrying: 0, running: 0)
        }
        return PendingWork(ready: row.ready, retrying: row.retrying, running: row.running)
    }

}
