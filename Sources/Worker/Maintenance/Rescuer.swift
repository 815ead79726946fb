import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Hands back other workers' jobs: those whose lease expired, and at once those of a worker
/// that stopped heartbeating (three beats missed). Any worker may rescue; many rescuers do not
/// wait on each other. Also forgets workers silent for a day.
struct Rescuer: Service {
    let database: Database
    let intervalSeconds: Double
    let logger: Logger

    func run() async {
        var rounds = 0
        await Periodic.run(every: intervalSeconds, logger: logger, failure: "rescue failed") {
            let forget = rounds % 360 == 0
            rounds += 1
            let rescued = try await database.withConnection { connection -> Int in
                if forget { try WorkerRegistry.forgetOld(connection) }
                return try JobQueue.rescue(connection)
            }
            if rescued > 0 { logger.notice("handed back jobs of stopped workers", metadata: ["jobs": "\(rescued)"]) }
        }
    }
}
