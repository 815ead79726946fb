import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Rolls up the dashboards' counts every few seconds (`Rollups`), and lets a service whose
/// spent cap has room again be claimed (`RateLimits.liftSpentCaps`), and moves erasures on
/// (`Erasures.advance`: a service's deletion done, or asked again). Every worker runs one; an
/// advisory lock lets one of them roll up at a time and the others return at once.
struct RollUp: Service {
    let database: Database
    let intervalSeconds: Double
    let logger: Logger

    func run() async {
        await Periodic.run(every: intervalSeconds, logger: logger, failure: "rolling up the dashboards' counts failed") {
            _ = try await database.withConnection { connection in
                try Rollups.rollUp(connection)
                try RateLimits.liftSpentCaps(connection)
                try Erasures.advance(connection)
            }
        }
    }
}
