import Postgres

/// Operators' hands on jobs: re-queue dead ones, cancel unfinished ones, chosen by id or by
/// filters. Both go through discern.retry / discern.cancel (the SQL interface psql users have),
/// in one statement, so a selection is applied atomically.
public enum JobControl {
    /// Which jobs: every field given must match (an empty selection matches nothing).
    public struct Selection: Sendable {
        public var ids: [Int64] = []
        public var batch: String?
        public var errorKind: String?
        public var backend: String?

        public init(ids: [Int64] = [], batch: String? = nil, errorKind: String? = nil, backend: String? = nil) {
            self.ids = ids
            self.batch = batch
            self.errorKind = errorKind
            self.backend = backend
        }

        public var isEmpty: Bool { ids.isEmpty && batch == nil && errorKind == nil && backend == nil }

        fileprivate var parameters: [(any PostgresEncodable)?] {
            [ids.isEmpty ? nil : ids, batch, errorKind, backend]
        }
    }

    private static let matching = """
        FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
        WHERE ($1::bigint[] IS NULL OR j.id = ANY($1)) AND ($2::text IS NULL OR b.name = $2)
          AND ($3::text IS NULL OR j.error_kind = $3) AND ($4::text IS NULL OR j.backend = $4)
        """

    /// Re-queues the dead jobs selected, with a fresh set of attempts (a cancelled job too,
    /// when named by id). Their error history is kept. Returns how many.
    public static func retry(_ connection: Connection, _ selection: Selection) throws -> Int {
        guard !selection.isEmpty else { return 0 }
        return try connection.query("""
            SELECT discern.retry(coalesce(array_agg(j.id), '{}')) AS n \(matching)
              AND (j.state = 'dead' OR ($1::bigint[] IS NOT NULL AND j.state = 'cancelled'))
            """, selection.parameters).first?.int("n") ?? 0
    }

    /// Cancels the selected jobs that have not finished (a running job's worker finds its lease
    /// gone and discards its work). Returns how many.
    public static func cancel(_ connection: Connection, _ selection: Selection) throws -> Int {
        guard !selection.isEmpty else { return 0 }
        return try connection.query("""
            SELECT discern.cancel(coalesce(array_agg(j.id), '{}')) AS n \(matching)
              AND j.state IN ('available', 'running')
            """, selection.parameters).first?.int("n") ?? 0
    }

    /// How many jobs of the selection are in each state: what a retry or cancel left alone.
    public static func states(_ connection: Connection, _ selection: Selection) throws -> [String: Int] {
        guard !selection.isEmpty else { return [:] }
        var states: [String: Int] = [:]
        for row in try connection.query("SELECT j.state, count(*) AS n \(matching) GROUP BY j.state", selection.parameters) {
            states[try row.string("state")] = try row.int("n")
        }
        return states
    }
}
