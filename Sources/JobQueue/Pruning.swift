import Postgres

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
        let sql =
            switch target {
            case .jobs: "SELECT discern.prune($1::interval, $2) AS deleted"
            case .results: "SELECT discern.prune_results($1::interval, $2) AS deleted"
            }
        return try connection.query(sql, ["\(days) days", chunk]).first?.int("deleted") ?? 0
    }
}
