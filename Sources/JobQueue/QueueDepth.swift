import Postgres
import SQLSchema

/// How many jobs of each service wait and run, as every worker samples them for its own
/// metrics (`discern_queue_depth`). What people and the monitor read is QueueReads'.
public struct QueueDepth: Sendable, Equatable {
    public let service: String
    public let state: String
    public let jobs: Int

    /// Waiting and running jobs only: what every worker may sample often.
    public static func live(_ connection: Connection) throws -> [QueueDepth] {
        try connection.run(Queries.QueueDepth.Live()).map { QueueDepth(service: $0.service, state: $0.state, jobs: $0.jobs) }
    }
}
