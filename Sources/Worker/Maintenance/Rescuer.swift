import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Hands back other workers' jobs: those whose lease expired, and at once those of a worker
/// that stopped heartbeating (three beats missed). Any worker may rescue; many rescuers do not
/// wait on each other. Never its own worker's jobs in hand: a worker starved of CPU may beat
/// late, but it is alive, and a job it took back from itself could run twice in it. Its own jobs
/// no longer in hand whose leases expired (an outcome that could not be written; a job lost by a
/// bug, as one was in issue 41) go back, since nobody else would ever take them. Also forgets
/// workers silent for a day.
///
/// After the database was away (a restart, a failover, a full disk), every worker's leases may
/// have run out meanwhile, though the workers live: the rescuer then waits `quietSeconds` (three
/// heartbeats) before rescuing, so each live worker renews its leases first. It waits as long
/// when it starts, since it may start just after such an outage (a pod the backlog scaled up).
/// Only jobs of workers that really stopped go back, and no job is charged a crash for the
/// database's outage.
struct Rescuer: Service {
    let database: Database
    let workerID: String
    let inFlight: InFlight
    let intervalSeconds: Double
    let logger: Logger
    var quietSeconds: Double { 3 * intervalSeconds }

    func run() async {
        var rounds = 0
        var databaseWasAway = false
        var quietUntil = ContinuousClock.now + .seconds(quietSeconds)
        await Periodic.run(every: intervalSeconds) {
            let forget = rounds % 360 == 0
            do {
                if databaseWasAway {
                    try await database.withConnection { _ = try $0.query("SELECT 1") }
                    databaseWasAway = false
                    quietUntil = .now + .seconds(quietSeconds)
                    logger.notice("the database is back; rescuing waits until live workers renewed their leases",
                                  metadata: ["seconds": "\(quietSeconds)"])
                }
                guard ContinuousClock.now >= quietUntil else { return }
                rounds += 1
                let rescued = try await database.withConnection { connection -> Int in
                    if forget { try WorkerRegistry.forgetOld(connection) }
                    return try JobQueue.rescue(connection, rescuer: workerID)
                }
                if rescued > 0 { logger.notice("handed back jobs of stopped workers", metadata: ["jobs": "\(rescued)"]) }
                try await releaseOrphans()
            } catch {
                databaseWasAway = databaseWasAway || (error as? PostgresError)?.isRetryable ?? false
                logger.warning("rescue failed; will try again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// This worker's running jobs it no longer holds, their leases expired: back to the queue.
    /// What it holds (and what it let go with an outcome still being written) is read first, so
    /// a job claimed meanwhile has a fresh lease and is left be.
    private func releaseOrphans() async throws {
        let holding = await inFlight.accountedFor, workerID = self.workerID
        let released = try await database.withConnection { try JobQueue.releaseOrphans($0, workerID: workerID, holding: holding) }
        if !released.isEmpty {
            logger.warning("handed back jobs this worker no longer held, their leases expired: they run again",
                           metadata: ["jobs": "\(released)"])
        }
    }
}
