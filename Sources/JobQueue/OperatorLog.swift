import Postgres
import SQLSchema

/// Who did what through discern: written in the transaction of the action
/// itself, so an action and its record stand or fall together.
public enum OperatorLog {
    public static func record(
        _ connection: Connection, actor: String, action: String, scope: String, jobs: Int,
        jobIDs: [Int64] = [], batch: String? = nil
    ) throws {
        try connection.run(
            Queries.OperatorLog.Record(
                actor: String(actor.prefix(200)), action: action, scope: String(scope.prefix(1000)), jobs: jobs,
                jobIds: jobIDs.isEmpty || jobIDs.count > QueueConstants.namedJobs ? nil : BinaryArray(jobIDs.map(Int.init)), batch: batch))
    }
}
