import Postgres
import SQLSchema

/// The shared rate-limit schedules (`discern.rate_limits`).
public enum RateLimits {
    /// Consecutive slots of `key`, as many as the limit allows in a quarter of a second, at most
    /// `wanted`: slot i is `firstWait + i x spacing` seconds from now (free at
    /// once when negative). nil when no limit is set for `key`.
    public struct Lease: Sendable {
        public let firstWait: Double
        public let spacing: Double
        public let granted: Int
        /// The service's spend cap is reached: no slot, and `firstWait` is the time to the end
        /// of the cap's period (the service is paused by 'spend cap' meanwhile).
        public var capped: Bool { granted == 0 }

        public init(firstWait: Double, spacing: Double, granted: Int) {
            self.firstWait = firstWait
            self.spacing = spacing
            self.granted = granted
        }
    }

    public static func lease(_ connection: Connection, key: String, wanted: Int) throws -> Lease? {
        guard let row = try connection.run(Queries.RateLimits.Lease(key: key, wanted: wanted)).first else { return nil }
        return Lease(firstWait: row.firstWait ?? 0, spacing: row.spacing ?? 0, granted: max(0, row.granted))
    }

    /// Lets services whose spent cap has room again be claimed (sql/functions/lift_spent_caps.sql).
    @discardableResult
    public static func liftSpentCaps(_ connection: Connection) throws -> Int {
        try connection.run(Queries.RateLimits.LiftSpentCaps()).first?.n ?? 0
    }

    /// A slot of `key` whose call never left: off the service's billed calls of the day.
    public static func returnSlot(_ connection: Connection, key: String) throws {
        try connection.run(Queries.RateLimits.ReturnSlot(key: key))
    }

    /// The service answered 429: push the schedule back (by `retryAfterSeconds` when it said).
    public static func rateLimited(_ connection: Connection, key: String, retryAfterSeconds: Double?) throws {
        try connection.run(Queries.RateLimits.RateLimited(key: key, retryAfterSeconds: retryAfterSeconds.map { min(max($0, 0), 3600) }))
    }
}
