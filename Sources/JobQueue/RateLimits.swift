import Postgres

/// The shared rate-limit schedules (`discern.rate_limits`, migration 0005).
public enum RateLimits {
    /// Reserves the next free moment of `key`; returns how many seconds from now it is (0: go),
    /// or nil when no limit is set for `key` (migration 0015).
    public static func reserve(_ connection: Connection, key: String) throws -> Double? {
        try connection.query(prepared: "SELECT discern.take_rate_token($1) AS wait", [key]).first?.optionalDouble("wait")
    }

    /// The service answered 429: push the schedule back (by `retryAfterSeconds` when it said).
    public static func rateLimited(_ connection: Connection, key: String, retryAfterSeconds: Double?) throws {
        try connection.query("SELECT discern.rate_limited($1, $2)", [key, retryAfterSeconds.map { min(max($0, 0), 3600) }])
    }
}
