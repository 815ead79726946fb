import Postgres

/// How many jobs of each backend are in each state: for metrics, `discern status` and probes.
public enum QueueStatus {
    public struct Depth: Sendable, Equatable {
        public let backend: String
        public let state: String
        public let jobs: Int
    }

    public static func depth(_ connection: Connection) throws -> [Depth] {
        try connection.query("SELECT backend, state, jobs FROM discern.queue_depth ORDER BY backend, state").map { row in
            Depth(backend: try row.string("backend"), state: try row.string("state"), jobs: try row.int("jobs"))
        }
    }
}
