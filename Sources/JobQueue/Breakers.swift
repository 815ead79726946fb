import ErrorCodes
import Postgres
import SQLSchema

/// The breakers shared by every worker (`discern.service_breakers`, migration 0030): a service
/// found unavailable has a row until a probe it answers, or `discern resume`, closes it.
public enum Breakers {
    /// Marks the service unavailable for every worker; true when this call did (it was closed).
    /// Its first probe may go `probeAfterSeconds` from now.
    @discardableResult
    public static func trip(
        _ connection: Connection, service: String, workerID: String, kind: FailureKind, error: String,
        probeAfterSeconds: Double
    ) throws -> Bool {
        try connection.run(
            Queries.Breakers.Trip(
                service: service, worker: workerID, kind: kind.code, error: String(error.prefix(1000)), probeAfterSeconds: probeAfterSeconds)
        ).first?.opened ?? false
    }

    /// A failed probe, as the breaker took it: the seconds until the next probe may go, and how
    /// often the probe's job had failed as one before.
    public struct ProbeFailure: Sendable, Equatable {
        public let nextProbeSeconds: Double
        public let jobFailedBefore: Int
    }

    /// The probe `jobID` of this worker failed for the service's reasons: the next one waits
    /// longer (`firstDelay` doubled per failed probe, at most `maxDelay`). nil when the breaker
    /// closed meanwhile or the probe was not ours.
    @discardableResult
    public static func probeFailed(
        _ connection: Connection, service: String, workerID: String, jobID: Int, kind: FailureKind,
        error: String, firstDelay: Double, maxDelay: Double
    ) throws -> ProbeFailure? {
        guard
            let row = try connection.run(
                Queries.Breakers.ProbeFailed(
                    service: service, worker: workerID, job: jobID, kind: kind.code, error: String(error.prefix(1000)), firstDelay: firstDelay,
                    maxDelay: maxDelay)
            ).first
        else { return nil }
        return ProbeFailure(nextProbeSeconds: max(0, row.wait ?? 0), jobFailedBefore: row.failedBefore ?? 0)
    }

    /// The service answered: its breaker closes and the listening workers claim at once. True
    /// when it was open.
    @discardableResult
    public static func close(_ connection: Connection, service: String, by: String, why: String) throws -> Bool {
        try connection.run(Queries.Breakers.Close(service: service, by: String(by.prefix(200)), why: why)).first?.closed ?? false
    }

    /// Which of `services` are unavailable now, each with the seconds until its next probe may
    /// go (0 when due).
    public static func open(_ connection: Connection, services: [String]) throws -> [String: Double] {
        let rows = try connection.run(Queries.Breakers.Open(services: BinaryArray(services)))
        return Dictionary(rows.map { ($0.service, $0.probeIn ?? 0) }, uniquingKeysWith: { $1 })
    }
}
