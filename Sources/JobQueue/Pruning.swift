import Postgres
import SQLSchema

/// Deleting what has finished, one chunk per call (`discern prune`, docs/sql.md). Each call is
/// one short transaction that skips locked rows, so workers never wait for it.
public enum Pruning {
    public enum Target: Sendable {
        /// Finished jobs (succeeded, dead, cancelled); their results are kept.
        case jobs
        /// Results, with their entities and corrections.
        case results
    }

    /// Deletes at most `chunk` rows older than `days` days; returns how many it deleted.
    public static func chunk(_ connection: Connection, _ target: Target, olderThanDays days: Int, chunk: Int) throws -> Int {
        let statement =
            switch target {
            case .jobs: Queries.Pruning.jobs
            case .results: Queries.Pruning.results
            }
        return try connection.query(statement, ["\(days) days", chunk]).first?.int("deleted") ?? 0
    }
}
