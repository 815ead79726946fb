import Postgres

/// How many jobs of each backend wait and run, as every worker samples them for its own
/// metrics (`discern_queue_depth`). What people and the monitor read is QueueReads'.
public struct QueueDepth: Sendable, Equatable {
    public let backend: String
    public let state: String
    public let jobs: Int

    /// Waiting and running jobs only, each counted through its partial index (the state a
    /// constant, so waiting jobs are counted from the index's entries alone): what every worker
    /// may sample often.
    public static func live(_ connection: Connection) throws -> [QueueDepth] {
        try connection.query(
            prepared: """
                SELECT backend, 'available' AS state, count(*) AS jobs FROM discern.jobs WHERE state = 'available' GROUP BY 1
                UNION ALL SELECT backend, 'running', count(*) FROM discern.jobs WHERE state = 'running' GROUP BY 1
                """
        ).map { row in
            QueueDepth(backend: try row.string("backend"), state: try row.string("state"), jobs: try row.int("jobs"))
        }
    }
}
