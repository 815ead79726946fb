import Postgres
import SQLSchema

/// The roll-ups dashboards, `status`, reports and the console read: triggers
/// note each change in small pending tables; rolling up moves what has committed into the
/// per-minute, per-hour and per-batch tables. The views are exact either way; rolling up keeps
/// the pending part small, so they stay cheap.
public enum Rollups {
    /// Moves the pending events into the roll-ups; returns how many. 0 when another worker is
    /// rolling up at this moment (it moves them).
    @discardableResult
    public static func rollUp(_ connection: Connection) throws -> Int {
        try connection.run(Queries.Rollups.RollUp()).first?.moved ?? 0
    }
}
