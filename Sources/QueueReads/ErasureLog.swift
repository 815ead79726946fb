import Foundation
import Postgres
import SQLSchema

/// The erasure log (`discern erase --status`, the console's Erasures page): each request, newest
/// first, with its steps; the key only as its kind and salted digest (docs/security.md).
public struct ErasureLog: Codable, Sendable {
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
            /// The waiting job's last error (a refusal before its attempts run out shows here).
            public let jobErrorKind: String?
            public let doneAt: String?
        }

        public let id: Int
        public let keyKind: String
        public let keyDigest: String
        public let requestedBy: String
        public let requestedAt: String
        /// Rows removed or redacted per part ("results", "jobs", ...).
        public let removed: [String: Int]
        public let state: String
        public let finishedAt: String?
        public let steps: [Step]
    }

    public let requests: [Request]
}

extension QueueReader {
    /// The newest `limit` requests; with `openOnly`, those still in progress.
    public func erasureLog(limit: Int = 50, openOnly: Bool = false) async throws -> ErasureLog {
        try await document(ErasureLog.self, Queries.Erasures.Status(limit: limit, openOnly: openOnly))
    }
}
