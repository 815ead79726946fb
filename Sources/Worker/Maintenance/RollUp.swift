import JobQueue
import Logging
import Postgres
import ServiceLifecycle

/// Rolls up the dashboards' counts every few seconds (`Rollups`). Every worker runs one; an
/// advisory lock lets one of them work at a time and the others return at once.
struct RollUp: Service {
    let database: Database
    let intervalSeconds: Double
    let logger: Logger

    func run() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await database.withConnection { try Rollups.rollUp($0) }
            } catch {
                logger.warning("rolling up the dashboards' counts failed; will try again", metadata: ["error": "\(error)"])
            }
            await pause(seconds: intervalSeconds)
        }
    }
}
