import Foundation
import Postgres

/// What an admin changes from the console (docs/console.md, "Who may act"): a shared rate
/// limit's pace and a service's spend cap, each in one statement with its line in the operator
/// log. The workers read both on their next slot: no restart.
public enum ServiceLimits {
    /// Sets the pace of the shared rate limit `key`, as `by`. False when there is no such limit.
    public static func setRateLimit(_ connection: Connection, key: String, perMinute: Double, by: String) throws -> Bool {
        try connection.query(
            """
            WITH done AS (
                -- A schedule a slower pace pushed far ahead is brought back to the new one's.
                UPDATE discern.rate_limits SET per_minute = $2,
                       next_at = least(next_at, clock_timestamp() + make_interval(secs => 60 / $2::float8))
                WHERE key = $1 RETURNING key),
            logged AS (INSERT INTO discern.operator_actions (actor, action, scope)
                       SELECT $3, 'rate_limit', left('rate limit ' || key || ': ' || $4, 1000) FROM done)
            SELECT count(*) AS n FROM done
            """, [key, perMinute, String(by.prefix(200)), "\(Self.figure(perMinute)) a minute"]
        ).first?.int("n") == 1
    }

    /// Sets `backend`'s spend cap to `calls` a `period` (day or month), or removes it (nil), as
    /// `by`; a service its spent cap had paused is let go at once when the new cap has room.
    public static func setSpendCap(_ connection: Connection, backend: String, calls: Int?, period: String, by: String) throws {
        let scope = "spend cap \(backend): " + (calls.map { "\($0) calls a \(period)" } ?? "no cap in calls (a cap in money, if set, still holds)")
        try connection.query(
            """
            WITH done AS (
                INSERT INTO discern.service_budgets (backend, cap_calls, cap_period, updated_by) VALUES ($1, $2, $3, $4)
                ON CONFLICT (backend) DO UPDATE SET cap_calls = EXCLUDED.cap_calls, cap_period = EXCLUDED.cap_period,
                                                    updated_at = now(), updated_by = EXCLUDED.updated_by
                RETURNING backend),
            logged AS (INSERT INTO discern.operator_actions (actor, action, scope) SELECT $4, 'spend_cap', left($5, 1000) FROM done)
            SELECT count(*) AS n FROM done
            """, [backend, calls, period, String(by.prefix(200)), scope])
        try RateLimits.liftSpentCaps(connection)
    }

    static func figure(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
