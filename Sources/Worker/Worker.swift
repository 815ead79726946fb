import Backends
import DedicatedThreads
import Foundation
import Imaging
import JobQueue
import Logging
import Metrics
import Postgres

/// Claims jobs and moves each through stages: prepare (CPU, `prepareThreads` dedicated threads,
/// at most `prepareQueue` jobs waiting or in it), analyze (network, up to `concurrency` calls in
/// flight), then batched completion. Claims are sized to the room in the stages, so a job is
/// never leased while it waits behind a saturated stage for long: at most `prepareQueue` prepared
/// jobs wait for a network slot.
///
/// `run` returns after `stop()` (in-flight jobs finish, or are handed back when the grace period
/// ends) or, with `drain`, when nothing claimable, retrying or running is left. It throws only
/// when the database stays unreachable; a job's failure is recorded on the job, never thrown.
public final class Worker: Sendable {
    let configuration: WorkerConfiguration
    private let conninfo: String
    private let claims: Database
    let completions: Database
    let batcher: CompletionBatcher
    let networkSlots: Slots
    let bytesInFlight: Slots
    let processor: JobProcessor
    let tally = Tally()
    private let blockingPool: ThreadPool
    let leases: LeaseKeeper
    let logger: Logger
    private let events = AsyncStream<WorkerEvent>.makeStream()

    public init(conninfo: String, backends: [any AnalysisBackend], configuration: WorkerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.conninfo = conninfo
        self.claims = Database(conninfo: conninfo, name: "discern-claim")
        self.completions = Database(conninfo: conninfo, name: "discern-complete")
        self.batcher = CompletionBatcher(database: completions, workerID: configuration.workerID,
                                         maxBatch: configuration.completionBatchSize, logger: logger)
        self.networkSlots = Slots(configuration.concurrency)
        self.bytesInFlight = Slots(configuration.maxBytesInFlight)
        self.blockingPool = ThreadPool(name: "discern-prepare", threads: configuration.prepareThreads, onThreadExit: Vips.threadShutdown)
        self.processor = JobProcessor(backends: Dictionary(backends.map { ($0.name, $0) }, uniquingKeysWith: { $1 }), blockingPool: blockingPool,
                                      roots: configuration.pathRoots, truncatedRetrySeconds: configuration.truncatedRetrySeconds)
        let events = self.events.continuation
        self.leases = LeaseKeeper(database: Database(conninfo: conninfo, name: "discern-lease"), configuration: configuration,
                                  logger: logger, onLost: { events.yield(.abandon($0)) })
        self.logger = logger
    }

    deinit { blockingPool.shutdown() }

    /// Stop claiming; let jobs in flight finish within the grace period. Safe from any thread.
    public func stop() { events.continuation.yield(.stop) }

    private var backendNames: [String] { Array(processor.backends.keys).sorted() }

    /// What this worker has done so far; safe to read while it runs.
    public func progress() async -> WorkerSummary { await tally.summary }

    public func run() async throws -> WorkerSummary {
        logger.info("worker started", metadata: [
            "worker": "\(configuration.workerID)", "backends": "\(backendNames.joined(separator: ","))",
            "concurrency": "\(configuration.concurrency)", "prepare_threads": "\(configuration.prepareThreads)",
            "drain": "\(configuration.drain)", "blocking_call_audit": "\(BlockingCallAudit.isEnabled ? "on" : "off")",
        ])
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
        let depth = Task { await sampleQueueDepth() }
        defer {
            listener.stop()
            ticker.cancel()
            heartbeat.cancel()
            depth.cancel()
        }

        var running: [Int: Task<Void, Never>] = [:]
        var preparing: Set<Int> = []
        var stopping = false
        var events = self.events.stream.makeAsyncIterator()
        loop: while true {
            if !stopping {
                // Room in the prepare stage, and in the whole pipeline (network slots plus the
                // prepared jobs allowed to wait for one).
                let room = min(configuration.prepareQueue - preparing.count,
                               configuration.concurrency + configuration.prepareQueue - running.count)
                let jobs = room > 0 ? try await claim(limit: room) : []
                for job in jobs {
                    await leases.hold(job.id)
                    preparing.insert(job.id)
                    running[job.id] = Task {
                        await self.handle(job) { continuation.yield(.prepared(job.id)) }
                        continuation.yield(.finished(job.id))
                    }
                }
                WorkerMetrics.inFlight("prepare", preparing.count)
                WorkerMetrics.inFlight("total", running.count)
                if jobs.count == room && room > 0 { continue }
                if configuration.drain, running.isEmpty, jobs.isEmpty, try await nothingLeft() { break }
            } else if running.isEmpty {
                break
            }
            guard let event = await events.next() else { break }
            switch event {
            case .prepared(let id):
                preparing.remove(id)
            case .finished(let id):
                preparing.remove(id)
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
        let started = ContinuousClock.now
        let jobs = try await Retrying.database(logger: logger, "claim jobs") {
            try await self.claims.withConnection { connection in
                try JobQueue.claim(connection, workerID: workerID, backends: backends, limit: limit, leaseSeconds: lease)
            }
        }
        if !jobs.isEmpty { WorkerMetrics.stage("claim", backend: "all", ContinuousClock.now - started) }
        return jobs
    }

    /// Queue depth by backend and state for the metrics, every 15 s; on the claim connection,
    /// which is idle between claims.
    private func sampleQueueDepth() async {
        while !Task.isCancelled {
            if let rows = try? await claims.withConnection({ try $0.query("SELECT backend, state, jobs FROM discern.queue_depth") }) {
                for row in rows {
                    if let backend = try? row.string("backend"), let state = try? row.string("state"), let jobs = try? row.int("jobs") {
                        WorkerMetrics.queueDepth(backend: backend, state: state, jobs)
                    }
                }
            }
            try? await Task.sleep(for: .seconds(15))
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
}

enum WorkerEvent: Sendable {
    case prepared(Int)
    case finished(Int)
    case wake
    case tick
    case stop
    case graceOver
    case abandon([Int])
}
