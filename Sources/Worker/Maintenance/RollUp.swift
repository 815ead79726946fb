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
        await Periodic.run(every: intervalSeconds, logger: logger, failure: "rolling up the dashboards' counts failed") {
            _ = try await database.withConnection { try Rollups.rollUp($0) }
        }
    }
}
