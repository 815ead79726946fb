import DedicatedThreads
import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle
import Telemetry

/// Claims jobs and hands them to the executor: as many as there is room for, at once when
/// notified of new jobs (`wakeup`, which `Presence` signals on a NOTIFY), else every poll
/// interval (behind a transaction-pooling PgBouncer no notification arrives). With `drain`, it returns once nothing is left to claim,
/// retry or finish, which ends the whole worker gracefully. On shutdown it stops claiming first.
struct Producer: Service {
    let claims: Database
    let configuration: WorkerConfiguration
    let services: [String]
    let inFlight: InFlight
    let outbox: OneWayQueue<Job>
    let breakers: ServiceBreakers
    let traces: JobTraces
    let tally: OutcomeCounts
    let wakeup: Signal
    let health: Health
    let logger: Logger

    func run() async throws {
        // Not ready from the moment claiming stops, whatever stopped it.
        defer { health.shuttingDown() }
        // However it ends, the executor learns there will be no more.
        do {
            try await withGracefulShutdownHandler {
                try await claimUntilStopped()
            } onGracefulShutdown: { [wakeup] in
                wakeup.signal()
            }
            // Said once claiming has stopped (SIGTERM, SIGINT): what the operator waits for, and
            // what a test may wait on before it lets the jobs in hand finish.
            if Task.isShuttingDownGracefully {
                let inHand = await inFlight.ids.count
                logger.notice(
                    "stopping: no more claims; the jobs in hand finish within the grace period, the rest go back to the queue",
                    metadata: ["jobs_in_hand": "\(inHand)", "grace_seconds": "\(configuration.graceSeconds)"])
            }
        } catch {
            await outbox.finish()
            throw error
        }
        await outbox.finish()
    }

    private func claimUntilStopped() async throws {
        var suspects = SuspectWatch()
        var share = FairShare()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                if try await claimOnce(&suspects, &share) { return }
            } catch let error as PostgresError where error.isRetryable || error.isContention {
                // The database keeps dropping the connection or refusing new ones (a restart, a
                // failover, server processes terminated), or the claim meets a lock past a lock or
                // statement timeout: the worker waits it out instead of exiting. Its
                // readiness says so; jobs in hand finish, and their outcomes are written as soon
                // as the database is back.
                health.databaseFailed()
                logger.warning("cannot claim: PostgreSQL keeps failing; claiming again shortly", metadata: ["error": "\(error)"])
                await wakeup.wait(timeout: .seconds(max(1, configuration.pollIntervalSeconds)))
            }
        }
    }

    /// One round: claims what there is room for, then waits unless there may be more at once.
    /// True when a draining worker is done.
    private func claimOnce(_ suspects: inout SuspectWatch, _ share: inout FairShare) async throws -> Bool {
        let holdingNothing = await inFlight.isEmpty
        if try await suspects.makingRoom(holdingNothing: holdingNothing, check: suspectWaiting) {
            await wakeup.wait(timeout: .seconds(configuration.pollIntervalSeconds))
            return false
        }
        // Up to two batches unwritten: one being written, the next filling up meanwhile.
        let room = await inFlight.room(
            prepareQueue: configuration.prepareQueue, concurrency: configuration.concurrency,
            maxUnwritten: 2 * configuration.completionBatchSize)
        let since = Traces.isOn ? Traces.now : nil
        let jobs = room > 0 ? try await claim(limit: room, oldestFirst: share.oldestFirst(of: room), holdingNothing: holdingNothing) : []
        share.record(claimed: jobs.count)
        if !jobs.isEmpty {
            health.databaseReached()
            await tally.claimed(jobs.count)
            let (fresh, running) = await inFlight.claimed(jobs)
            if !running.isEmpty {
                logger.notice(
                    "claimed jobs this worker is still running (another worker took it for stopped); the runs under way keep them",
                    metadata: ["jobs": "\(running)"])
            }
            if let since { traces.claimed(fresh, traceparents: await storedTraceparents(fresh), since: since) }
            for job in fresh { await outbox.send(job) }
            let counts = await inFlight.counts
            WorkerMetrics.inFlight("prepare", counts.preparing)
            WorkerMetrics.inFlight("total", counts.total)
            if jobs.count == room, !jobs.contains(where: \.runsAlone) { return false }
        }
        if configuration.drain, jobs.isEmpty, await inFlight.isEmpty, try await nothingLeft() { return true }
        if room > 0, jobs.isEmpty {
            // What a test waits on to see a pause or a cap hold: a worker with room that took nothing.
            let holding = await inFlight.counts.total
            logger.debug("nothing to claim", metadata: ["room": "\(room)", "in_flight": "\(holding)"])
        }
        await wakeup.wait(timeout: untilNextLook())
        return false
    }

    /// The poll interval, or less when a probe of a service found down is due sooner.
    private func untilNextLook() -> Duration {
        let poll = Duration.seconds(configuration.pollIntervalSeconds)
        guard let probe = breakers.nextProbe else { return poll }
        // A moment after it is due: the database's clock decides, and it may be a little behind.
        return max(.milliseconds(100), min(poll, probe - .now + .milliseconds(100)))
    }

    private func claim(limit: Int, oldestFirst: Int, holdingNothing: Bool) async throws -> [Job] {
        let workerID = configuration.workerID, lease = configuration.leaseSeconds, services = self.services
        let started = ContinuousClock.now
        let jobs = try await Retrying.database(logger: logger, "claim jobs") {
            try await self.claims.withConnection { connection in
                try JobQueue.claim(
                    connection, workerID: workerID, services: services, limit: limit, leaseSeconds: lease,
                    oldestFirst: oldestFirst, holdingNothing: holdingNothing)
            }
        }
        if !jobs.isEmpty {
            WorkerMetrics.stage("claim", service: "all", ContinuousClock.now - started)
            // The claim found these services' breakers closed: one known open has closed since.
            breakers.claimed(Set(jobs.lazy.filter { !$0.isProbe }.map(\.service)), started: started)
        }
        if let alone = jobs.first(where: \.runsAlone) {
            logger.notice(
                "running a job alone: its workers stopped while it ran beside others",
                metadata: [
                    "job": "\(alone.id)", "path": "\(alone.imagePath)"
                ])
        }
        return jobs
    }

    /// The traceparents stored with `jobs` (their enqueue's spans), read only while tracing is on:
    /// the claim itself stays as it is. None when they cannot be read: the traces then start here.
    private func storedTraceparents(_ jobs: [Job]) async -> [Int: String] {
        let ids = jobs.map(\.id)
        return (try? await claims.withConnection { try JobQueue.traceparents($0, of: ids) }) ?? [:]
    }

    /// A job that must run alone has waited for a worker holding nothing for a while.
    private func suspectWaiting() async throws -> Bool {
        let services = self.services
        return try await Retrying.database(logger: logger, "look for jobs that must run alone") {
            try await self.claims.withConnection {
                try JobQueue.aloneJobWaiting($0, services: services, forSeconds: SuspectWatch.patienceSeconds)
            }
        }
    }

    /// Nothing claimable, retrying or running for these services, anywhere.
    private func nothingLeft() async throws -> Bool {
        let services = self.services
        return try await Retrying.database(logger: logger, "check remaining work") {
            try await self.claims.withConnection { try JobQueue.pendingWork($0, services: services).isEmpty }
        }
    }
}

/// A job that must run alone (`Job.runsAlone`) is taken only by a worker holding nothing, which
/// a busy worker never is. So a busy worker looks every `patienceSeconds` whether one has waited
/// that long, and if so stops claiming until it holds nothing, then takes it.
struct SuspectWatch {
    static let patienceSeconds = 30.0
    private var lastLook = ContinuousClock.now
    private var emptying = false

    /// True while claiming is held back to empty the worker for a waiting job.
    mutating func makingRoom(holdingNothing: Bool, check: () async throws -> Bool) async throws -> Bool {
        if holdingNothing {
            emptying = false
            return false
        }
        if !emptying, ContinuousClock.now - lastLook >= .seconds(Self.patienceSeconds) {
            lastLook = ContinuousClock.now
            emptying = try await check()
        }
        return emptying
    }
}
