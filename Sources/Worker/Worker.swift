import Backends
import DedicatedThreads
import Foundation
import Imaging
import JobQueue
import Logging
import Postgres

/// Claims jobs, processes up to `concurrency` of them at once, and records each outcome.
///
/// `run` returns after `stop()` (in-flight jobs finish, or are handed back when the grace period
/// ends) or, with `drain`, when nothing claimable, retrying or running is left. It throws only
/// when the database stays unreachable; a job's failure is recorded on the job, never thrown.
public final class Worker: Sendable {
    private let configuration: WorkerConfiguration
    private let conninfo: String
    private let claims: Database
    private let completions: Database
    private let processor: JobProcessor
    private let blockingPool: ThreadPool
    private let leases: LeaseKeeper
    private let logger: Logger
    private let events = AsyncStream<WorkerEvent>.makeStream()

    public init(conninfo: String, backends: [any AnalysisBackend], configuration: WorkerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.conninfo = conninfo
        self.claims = Database(conninfo: conninfo, name: "discern-claim")
        self.completions = Database(conninfo: conninfo, name: "discern-complete")
        self.blockingPool = ThreadPool(name: "discern-prepare", threads: configuration.prepareThreads, onThreadExit: Vips.threadShutdown)
        self.processor = JobProcessor(backends: Dictionary(backends.map { ($0.name, $0) }, uniquingKeysWith: { $1 }), blockingPool: blockingPool)
        let events = self.events.continuation
        self.leases = LeaseKeeper(database: Database(conninfo: conninfo, name: "discern-lease"), configuration: configuration,
                                  logger: logger, onLost: { events.yield(.abandon($0)) })
        self.logger = logger
    }

    deinit { blockingPool.shutdown() }

    /// Stop claiming; let jobs in flight finish within the grace period. Safe from any thread.
    public func stop() { events.continuation.yield(.stop) }

    private var backendNames: [String] { Array(processor.backends.keys).sorted() }

    public func run() async throws -> WorkerSummary {
        logger.info("worker started", metadata: [
            "worker": "\(configuration.workerID)", "backends": "\(backendNames.joined(separator: ","))",
            "concurrency": "\(configuration.concurrency)", "drain": "\(configuration.drain)",
        ])
        let tally = Tally()
        let continuation = events.continuation
        // New jobs wake the worker at once (LISTEN/NOTIFY); the ticker is the fallback when
        // notifications cannot arrive (a transaction-pooling PgBouncer in between).
        let listener = NotificationListener(conninfo: conninfo, channel: "discern_jobs") { continuation.yield(.wake) }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(configuration.pollIntervalSeconds))
                continuation.yield(.tick)
            }
        }
        let heartbeat = Task { await leases.keepAlive() }
        defer {
            listener.stop()
            ticker.cancel()
            heartbeat.cancel()
        }

        var running: [Int: Task<Void, Never>] = [:]
        var stopping = false
        var events = self.events.stream.makeAsyncIterator()
        loop: while true {
            if !stopping {
                let free = configuration.concurrency - running.count
                let jobs = free > 0 ? try await claim(limit: free) : []
                for job in jobs {
                    await leases.hold(job.id)
                    running[job.id] = Task {
                        await self.handle(job, tally: tally)
                        continuation.yield(.finished(job.id))
                    }
                }
                if !jobs.isEmpty && running.count < configuration.concurrency { continue }
                if configuration.drain, running.isEmpty, jobs.isEmpty, try await nothingLeft() { break }
            } else if running.isEmpty {
                break
            }
            guard let event = await events.next() else { break }
            switch event {
            case .finished(let id):
                running[id] = nil
            case .stop where !stopping:
                stopping = true
                logger.notice("stopping: no new claims; waiting for jobs in flight", metadata: [
                    "in_flight": "\(running.count)", "grace_seconds": "\(configuration.graceSeconds)",
                ])
                Task {
                    try? await Task.sleep(for: .seconds(configuration.graceSeconds))
                    continuation.yield(.graceOver)
                }
            case .graceOver:
                await handBack(Array(running.keys))
                running.values.forEach { $0.cancel() }
                break loop
            case .abandon(let ids):
                // Cancelled or rescued meanwhile: the work would be discarded, so stop doing it.
                ids.forEach { running[$0]?.cancel() }
            case .stop, .wake, .tick:
                continue
            }
        }
        let summary = await tally.summary
        logger.info("worker finished", metadata: [
            "succeeded": "\(summary.succeeded)", "dead": "\(summary.dead)",
            "retry_scheduled": "\(summary.retryScheduled)", "lease_lost": "\(summary.leaseLost)",
        ])
        return summary
    }

    private func claim(limit: Int) async throws -> [Job] {
        let workerID = configuration.workerID, lease = configuration.leaseSeconds, backends = backendNames
        return try await Retrying.database(logger: logger, "claim jobs") {
            try await self.claims.withConnection { connection in
                try JobQueue.claim(connection, workerID: workerID, backends: backends, limit: limit, leaseSeconds: lease)
            }
        }
    }

    private func nothingLeft() async throws -> Bool {
        let backends = backendNames
        return try await Retrying.database(logger: logger, "check remaining work") {
            try await self.claims.withConnection { connection in
                try JobQueue.rescueExpiredLeases(connection)
                return try JobQueue.pendingWork(connection, backends: backends).isEmpty
            }
        }
    }

    /// The grace period is over: give the unfinished jobs back without counting the attempt.
    private func handBack(_ ids: [Int]) async {
        let workerID = configuration.workerID
        do {
            let released = try await completions.withConnection { try JobQueue.release($0, jobIDs: ids, workerID: workerID) }
            logger.notice("grace period over: handed jobs in flight back to the queue", metadata: ["jobs": "\(released)"])
        } catch {
            logger.error("could not hand jobs back; they return when their leases expire", metadata: ["error": "\(error)"])
        }
    }

    private func handle(_ job: Job, tally: Tally) async {
        var log = logger
        log[metadataKey: "job"] = "\(job.id)"
        log[metadataKey: "attempt"] = "\(job.attempt)"
        defer { Task { await leases.release(job.id) } }
        let outcome = await processor.process(job)
        guard !Task.isCancelled else { return }
        let workerID = configuration.workerID, backoff = configuration.backoff
        do {
            switch outcome {
            case .success(let result):
                let stored = try await Retrying.database(logger: log, "complete job") {
                    try await self.completions.withConnection { connection in
                        try JobQueue.complete(connection, job: job, workerID: workerID, result: result)
                    }
                }
                await tally.record(stored ? .succeeded : .leaseLost)
                log.info("job succeeded", metadata: [
                    "path": "\(job.imagePath)", "operator": "\(result.analysis.serviceOperator ?? "-")",
                    "sent_bytes": "\(result.preparation.sentBytes)", "passed_through": "\(result.preparation.passedThrough)",
                    "lease_lost": "\(!stored)",
                ])
            case .failure(let failure):
                let state = try await Retrying.database(logger: log, "record failure") {
                    try await self.completions.withConnection { connection in
                        try JobQueue.fail(connection, job: job, workerID: workerID, failure: failure, backoff: backoff)
                    }
                }
                await tally.record(state == .dead ? .dead : state == .leaseLost ? .leaseLost : .retryScheduled)
                log.warning("job failed", metadata: [
                    "path": "\(job.imagePath)", "error_kind": "\(failure.kind)", "now": "\(state.rawValue)",
                    "error": "\(failure.message)",
                ])
            }
        } catch {
            // The lease will expire and the job will run again: nothing is lost.
            log.error("could not record the outcome; the job will be retried when its lease expires", metadata: ["error": "\(error)"])
        }
    }
}

enum WorkerEvent: Sendable {
    case finished(Int)
    case wake
    case tick
    case stop
    case graceOver
    case abandon([Int])
}

/// Counts outcomes across concurrent jobs.
private actor Tally {
    enum Outcome { case succeeded, retryScheduled, dead, leaseLost }
    private(set) var summary = WorkerSummary()

    func record(_ outcome: Outcome) {
        switch outcome {
        case .succeeded: summary.succeeded += 1
        case .retryScheduled: summary.retryScheduled += 1
        case .dead: summary.dead += 1
        case .leaseLost: summary.leaseLost += 1
        }
    }
}
