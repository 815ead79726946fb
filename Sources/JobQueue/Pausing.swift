import Postgres
import SQLSchema

/// Pausing a service: workers stop claiming its jobs at their next claim (discern.claim
/// skips it), jobs in flight finish, nothing is cancelled. Migration 0023.
public enum Pausing {
    /// True when the service ran and is paused now; false when it was paused already.
    /// Recorded `by` whom (discern.operator_actions) in the same statement, when it changed anything.
    public static func pause(_ connection: Connection, service: String, by: String, reason: String? = nil) throws -> Bool {
        try connection.run(
            Queries.Pausing.Pause(
                service: service, by: String(by.prefix(200)), reason: reason.map { String($0.prefix(500)) },
                scope: "service \(service)" + (reason.map { ": \($0.prefix(500))" } ?? ""))
        ).first?.changed ?? false
    }

    /// True when the service was paused and runs again (the listening workers are woken).
    public static func resume(_ connection: Connection, service: String, by: String) throws -> Bool {
        try connection.run(Queries.Pausing.Resume(service: service, by: String(by.prefix(200)), scope: "service \(service)")).first?.changed ?? false
    }
}
