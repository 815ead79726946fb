import Foundation
import Postgres
import SQLSchema

/// Erasure of a person's data on request (docs/operations.md, "Erasing a person"): discern.erase
/// removes every copy discern holds and makes the services' deletions steps of the request, run
/// as jobs; `advance` (every worker's roll-up round) follows them until the request is done.
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

    /// The requests and their steps, as the log keeps them: the key only as a digest.
    public struct Status: Codable, Sendable {
        public struct Request: Codable, Sendable {
            public struct Step: Codable, Sendable {
                public let step: Int
                public let service: String
                public let action: String
                public let state: String
                public let outcome: String?
                public let rounds: Int
                public let lastErrorKind: String?
                public let jobState: String?
                public let jobAttempts: Int?
                public let doneAt: String?
            }

            public let id: Int
            public let keyKind: String
            public let keyDigest: String
            public let requestedBy: String
            public let requestedAt: String
            public let removed: [String: Int]
            public let state: String
            public let finishedAt: String?
            public let steps: [Step]
        }

        public let requests: [Request]
    }

    public static func erase(_ kind: Kind, _ key: String, dryRun: Bool, by actor: String, on connection: Connection) throws -> Outcome {
        do {
            let rows = try connection.transaction { try $0.query(Queries.Erasures.erase, [kind.rawValue, key, dryRun, String(actor.prefix(200))]) }
            return Outcome(
                requestID: try rows.first?.optionalInt("request_id"),
                parts: try rows.map { (part: try $0.string("part"), rows: try $0.int("n")) })
        } catch let error as PostgresError where error.sqlState == "22023" {
            throw QueueError(.invalidSelection, Reanalysis.primaryMessage(error.message))
        }
    }

    /// Moves every erasure on; returns how many it finished.
    @discardableResult
    public static func advance(_ connection: Connection) throws -> Int {
        try connection.query(Queries.Erasures.advance).first?.int("finished") ?? 0
    }

    public static func status(limit: Int = 50, openOnly: Bool = false, on connection: Connection) throws -> Status {
        let text = try connection.query(Queries.Erasures.status, [limit, openOnly]).first?.string("doc") ?? "{\"requests\":[]}"
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Status.self, from: Data(text.utf8))
    }
}
