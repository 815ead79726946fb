import Postgres
import SQLSchema

/// How many jobs of each backend wait and run, as every worker samples them for its own
/// metrics (`discern_queue_depth`). What people and the monitor read is QueueReads'.
public struct QueueDepth: Sendable, Equatable {
    public let backend: String
    public let state: String
    public let jobs: Int

    /// Waiting and running jobs only: what every worker may sample often.
    public static func live(_ connection: Connection) throws -> [QueueDepth] {
        try connection.query(prepared: Queries.QueueDepth.live).map { row in
            QueueDepth(backend: try row.string("backend"), state: try row.string("state"), jobs: try row.int("jobs"))
        }
    }
}
