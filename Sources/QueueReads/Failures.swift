import Foundation
import SQLSchema

/// Page 5: dead jobs grouped by error kind (with the message a person can act on), the newest
/// dead jobs, and the jobs failing right now (waiting for a retry after an error).
public struct Failures: Codable, Sendable {
    public struct Kind: Codable, Sendable {
        public let service: String; public let errorKind: String?; public let jobs: Int; public let example: String?
        public let lastSeen: String?
    }
    public struct JobLine: Codable, Sendable {
        public let id: Int; public let service: String; public let batch: String?; public let imagePath: String
        public let attempts: Int; public let maxAttempts: Int; public let errorKind: String?; public let lastError: String?
        public let at: String?
    }

    public let kinds: [Kind]
    public let recentDead: [JobLine]
    public let failing: [JobLine]
}

extension QueueReader {
    public func failures() async throws -> Failures { try await document(Failures.self, Queries.Failures.Document()) }
}
