import Foundation
import Postgres
import SQLSchema

/// Erasure of a person's data on request (docs/operations.md, "Erasing a person"): discern.erase
/// removes every copy discern holds and makes the services' deletions steps of the request, run
/// as jobs; `advance` (every worker's roll-up round) follows them until the request is done.
/// The log is read through QueueReads' `ErasureLog`.
public enum Erasures {
    /// What a key names.
    public enum Kind: String, Sendable, CaseIterable {
        case subject, plate, photo, content
    }

    /// What an erasure removed (or, dry, would), per part: "results", "jobs", ..., and one
    /// "service: ooto delete" per deletion asked of a service.
    public struct Outcome: Sendable, Equatable {
        public let requestID: Int?
        public let parts: [(part: String, rows: Int)]

        public static func == (left: Self, right: Self) -> Bool {
            left.requestID == right.requestID && left.parts.map(\.part) == right.parts.map(\.part)
                && left.parts.map(\.rows) == right.parts.map(\.rows)
        }
    }

    public static func erase(_ kind: Kind, _ key: String, dryRun: Bool, by actor: String, on connection: Connection) throws -> Outcome {
        do {
            let rows = try connection.transaction {
                try $0.run(Queries.Erasures.Erase(keyKind: kind.rawValue, key: key, dryRun: dryRun, actor: String(actor.prefix(200))))
            }
            return Outcome(requestID: rows.first?.requestId, parts: rows.map { (part: $0.part, rows: $0.n) })
        } catch let error as PostgresError where error.sqlState == "22023" {
            throw QueueError(.invalidSelection, error.primaryMessage)
        }
    }

    /// Moves every erasure on; returns how many it finished.
    @discardableResult
    public static func advance(_ connection: Connection) throws -> Int {
        try connection.run(Queries.Erasures.Advance()).first?.finished ?? 0
    }
}
