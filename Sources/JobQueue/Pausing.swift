import Postgres

/// Pausing a service: workers stop claiming its jobs at their next claim (discern.claim_jobs
/// skips it), jobs in flight finish, nothing is cancelled. Migration 0023.
public enum Pausing {
    /// True when the service ran and is paused now; false when it was paused already.
    public static func pause(_ connection: Connection, backend: String, by: String, reason: String? = nil) throws -> Bool {
        try connection.query("SELECT discern.pause($1, $2, $3) AS changed", [backend, String(by.prefix(200)), reason.map { String($0.prefix(500)) }])
            .first?.bool("changed") ?? false
    }

    /// True when the service was paused and runs again (the listening workers are woken).
    public static func resume(_ connection: Connection, backend: String) throws -> Bool {
        try connection.query("SELECT discern.resume($1) AS changed", [backend]).first?.bool("changed") ?? false
    }
}
