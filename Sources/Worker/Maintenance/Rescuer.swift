import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Hands back other workers' jobs once those workers are gone: PostgreSQL knows at once when a
/// worker's session ends (`Queries.Jobs.rescue`), so a rescuer acts on its first round, however
/// short-lived the fleet around it is (a crash loop, pods that never pass their probes). Any
/// worker may rescue; many rescuers do not wait on each other. Never its own worker's jobs in
/// hand: a job it took back from itself could run twice in it. Its own jobs no longer in hand
/// whose leases expired (an outcome that could not be written) go back, since nobody else would
/// ever take them. Also forgets workers silent for a day.
///
/// After the database restarted or failed over, every session is new: a worker not heard from
/// since is awaited while it reconnects (`JobQueue.rescue`), each rescuer saying so once. After
/// this rescuer itself lost the database (others may have lost it too, and be reconnecting),
/// it rescues nothing for three rounds.
struct Rescuer: Service {
    let database: Database
    let workerID: String
    let inFlight: InFlight
    let tally: OutcomeCounts
    let intervalSeconds: Double
    let logger: Logger
    var quietSeconds: Double { 3 * intervalSeconds }

    func run() async {
        var rounds = 0
        var databaseWasAway = false
        var quietUntil: ContinuousClock.Instant?
        var awaiting = false
        await Periodic.run(every: intervalSeconds) {
            let forget = rounds % 360 == 0
            do {
                if databaseWasAway {
                    try await database.withConnection { try JobQueue.ping($0) }
                    databaseWasAway = false
                    quietUntil = .now + .seconds(quietSeconds)
                    logger.notice(
                        "the database is back; rescuing waits until live workers reconnected",
                        metadata: ["seconds": "\(quietSeconds)"])
                }
                if let until = quietUntil, ContinuousClock.now < until { return }
                let workerID = self.workerID
                let round = try await database.withConnection { connection in
                    if forget { try WorkerRegistry.forgetOld(connection) }
                    return try JobQueue.rescue(connection, rescuer: workerID)
                }
                rounds += 1
                if round.awaitedWorkers > 0, !awaiting {
                    logger.notice(
                        "the database server is new (a restart or a failover): the jobs of workers not heard from since wait while they reconnect",
                        metadata: ["workers": "\(round.awaitedWorkers)", "seconds": "\((round.awaitedSeconds ?? 0).rounded(.up))"])
                } else if round.awaitedWorkers == 0, awaiting || quietUntil != nil {
                    logger.notice("live workers had time to reconnect: rescuing again", metadata: ["jobs": "\(round.rescued)"])
                }
                (awaiting, quietUntil) = (round.awaitedWorkers > 0, nil)
                if round.rescued > 0 {
                    await tally.rescued(round.rescued)
                    logger.notice("handed back jobs of stopped workers", metadata: ["jobs": "\(round.rescued)"])
                }
                try await failOrphans()
            } catch {
                databaseWasAway = databaseWasAway || (error as? PostgresError)?.isRetryable ?? false
                logger.warning("rescue failed; will try again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// This worker's running jobs it no longer holds, their leases expired: back to the queue.
    /// What it holds (and what it let go with an outcome still being written) is read first, so
    /// a job claimed meanwhile has a fresh lease and is left be.
    private func failOrphans() async throws {
        let holding = await inFlight.accountedFor, workerID = self.workerID
        let orphans = try await database.withConnection { try JobQueue.failOrphans($0, workerID: workerID, holding: holding) }
        if !orphans.isEmpty {
            await tally.rescued(orphans.count)
            logger.warning(
                "failed the jobs this worker no longer held, their leases expired: the attempt counts; they run again while attempts remain",
                metadata: ["jobs": "\(orphans)"])
        }
    }
}
