import Postgres

/// Who did what through discern: written in the transaction of the action
/// itself, so an action and its record stand or fall together.
public enum OperatorLog {
    /// The jobs named when an action changed at most this many; beyond, its scope says what.
    static let namedJobs = 1000

    public static func record(
        _ connection: Connection, actor: String, action: String, scope: String, jobs: Int,
        jobIDs: [Int64] = [], batch: String? = nil
    ) throws {
        try connection.query(
            """
            INSERT INTO discern.operator_actions (actor, action, scope, jobs, job_ids, batch_id)
            VALUES ($1, $2, $3, $4, $5, (SELECT id FROM discern.batches WHERE name = $6))
            """,
            [
                String(actor.prefix(200)), action, String(scope.prefix(1000)), jobs,
                jobIDs.isEmpty || jobIDs.count > namedJobs ? nil : jobIDs, batch
            ])
    }
}
