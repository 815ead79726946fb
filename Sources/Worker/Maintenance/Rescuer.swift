import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Hands back other workers' jobs once those workers are gone: PostgreSQL knows at once when a
/// worker's session ends (`QueueSQL.rescue`), so a rescuer acts on its first round, however
/// short-lived the fleet around it is (a crash loop, pods that never pass their probes). Any
/// worker may rescue; many rescuers do not wait on each other. Never its own worker's jobs in
/// hand: a job it took back from itself could run twice in it. Its own jobs no longer in hand
/// whose leases expired (an outcome that could not be written) go back, since nobody else would
/// ever take them. Also forgets workers silent for a day.
///
/// After the database restarted or failed over, every session is new and live workers are
/// still reconnecting: no rescue until `reconnectSeconds` (three heartbeats) after a rescuer
/// first saw the new server, or after this rescuer itself lost the database. No job of a live
/// worker is taken, and none is charged a crash for the database's outage.
struct Rescuer: Service {
    let database: Database
    let workerID: String
    let inFlight: InFlight
    let intervalSeconds: Double
    let logger: Logger
    var reconnectSeconds: Double { 3 * intervalSeconds }

    func run() async {
        var rounds = 0
        var databaseWasAway = false
        var quietUntil: ContinuousClock.Instant?
        var waitingForReconnects = false
        await Periodic.run(every: intervalSeconds) {
            let forget = rounds % 360 == 0
            do {
                if databaseWasAway {
                    try await database.withConnection { _ = try $0.query("SELECT 1") }
                    databaseWasAway = false
                    quietUntil = .now + .seconds(reconnectSeconds)
                    logger.notice("the database is back; rescuing waits until live workers reconnected",
                                  metadata: ["seconds": "\(reconnectSeconds)"])
                }
                if let until = quietUntil, ContinuousClock.now < until { return }
                let reconnect = reconnectSeconds, workerID = self.workerID
                let rescued = try await database.withConnection { connection -> Int? in
                    if forget { try WorkerRegistry.forgetOld(connection) }
                    guard try JobQueue.databaseEpochAge(connection) >= reconnect else { return nil }
                    return try JobQueue.rescue(connection, rescuer: workerID)
                }
                rounds += 1
                guard let rescued else {
                    if !waitingForReconnects {
                        logger.notice("the database server is new (a restart or a failover): rescuing waits until live workers reconnected",
                                      metadata: ["seconds": "\(reconnectSeconds)"])
                    }
                    waitingForReconnects = true
                    return
                }
                if waitingForReconnects || quietUntil != nil {
                    logger.notice("live workers had time to reconnect: rescuing again", metadata: ["jobs": "\(rescued)"])
                }
                (waitingForReconnects, quietUntil) = (false, nil)
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
