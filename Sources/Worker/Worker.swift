import Backends
import DedicatedThreads
import Foundation
import Imaging
import JobQueue
import Logging
import Postgres

/// Claims jobs, processes up to `concurrency` of them at once, and records each outcome.
///
/// `run` returns when the task is cancelled (after in-flight jobs finish) or, with `drain`, when
/// nothing claimable, retrying or running is left. It throws only when the database stays
/// unreachable; a job's failure is recorded on the job, never thrown.
public final class Worker: Sendable {
    private let configuration: WorkerConfiguration
    private let claims: Database
    private let completions: Database
    private let processor: JobProcessor
    private let blockingPool: ThreadPool
    private let leases: LeaseKeeper
    private let logger: Logger

    public init(conninfo: String, backends: [any AnalysisBackend], configuration: WorkerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.claims = Database(conninfo: conninfo, name: "discern-pg-claim")
        self.completions = Database(conninfo: conninfo, name: "discern-pg-complete")
        self.blockingPool = ThreadPool(name: "discern-prepare", threads: configuration.prepareThreads, onThreadExit: Vips.threadShutdown)
        self.processor = JobProcessor(backends: Dictionary(backends.map { ($0.name, $0) }, uniquingKeysWith: { $1 }), blockingPool: blockingPool)
        self.leases = LeaseKeeper(database: Database(conninfo: conninfo, name: "discern-pg-lease"), configuration: configuration, logger: logger)
        self.logger = logger
    }

    deinit { blockingPool.shutdown() }

    private var backendNames: [String] { Array(processor.backends.keys).sorted() }

    public func run() async throws -> WorkerSummary {
        logger.info("worker started", metadata: [
            "worker": "\(configuration.workerID)", "backends": "\(backendNames.joined(separator: ","))",
            "concurrency": "\(configuration.concurrency)", "drain": "\(configuration.drain)",
        ])
        let tally = Tally()
        let heartbeat = Task { await leases.keepAlive() }
        defer { heartbeat.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            while !Task.isCancelled {
                let jobs = inFlight < configuration.concurrency ? try await claim(limit: configuration.concurrency - inFlight) : []
                for job in jobs {
                    inFlight += 1
                    await leases.hold(job.id)
                    group.addTask { await self.handle(job, tally: tally) }
                }
                if !jobs.isEmpty && inFlight < configuration.concurrency { continue }
                if inFlight > 0 {
                    // Wait for a slot (or, when the queue ran dry, for any job to finish).
                    try await group.next()
                    inFlight -= 1
                    continue
                }
                if configuration.drain, try await nothingLeft() { break }
                try? await Task.sleep(for: .seconds(configuration.pollIntervalSeconds))
            }
            try await group.waitForAll()
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

    private func handle(_ job: Job, tally: Tally) async {
        var log = logger
        log[metadataKey: "job"] = "\(job.id)"
        log[metadataKey: "attempt"] = "\(job.attempt)"
        let outcome = await processor.process(job)
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
        await leases.release(job.id)
    }
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
