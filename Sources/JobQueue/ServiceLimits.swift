import Foundation
import Postgres
import SQLSchema

/// What an admin changes from the console (docs/console.md, "Who may act"): a shared rate
/// limit's pace and a service's spend cap, each in one statement with its line in the operator
/// log. The workers read both on their next slot: no restart.
public enum ServiceLimits {
    /// Sets the pace of the shared rate limit `key`, as `by`. False when there is no such limit.
    public static func setRateLimit(_ connection: Connection, key: String, perMinute: Double, by: String) throws -> Bool {
        try connection.run(
            Queries.ServiceLimits.SetRateLimit(
                key: key, perMinute: perMinute, by: String(by.prefix(200)), scope: "\(Self.figure(perMinute)) a minute")
        ).first?.n == 1
    }

    /// Sets `service`'s spend cap to `calls` a `period` (day or month), or removes it (nil), as
    /// `by`; a service its spent cap had paused is let go at once when the new cap has room.
    public static func setSpendCap(_ connection: Connection, service: String, calls: Int?, period: String, by: String) throws {
        let scope = "spend cap \(service): " + (calls.map { "\($0) calls a \(period)" } ?? "no cap in calls (a cap in money, if set, still holds)")
        try connection.run(
            Queries.ServiceLimits.SetSpendCap(service: service, calls: calls, period: period, by: String(by.prefix(200)), scope: scope))
        try RateLimits.liftSpentCaps(connection)
    }

    static func figure(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
