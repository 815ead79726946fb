import Foundation
import SQLSchema

/// One thing a person did through discern (discern.operator_actions).
public struct OperatorAction: Codable, Sendable {
    public let id: Int
    public let at: String
    public let actor: String
    public let action: String
    public let scope: String
    public let jobs: Int
}

/// The console's /log: every retry, cancel, pause, resume and review, newest first, a page at
/// a time (keyset: `before` the last id shown).
public struct OperatorLogPage: Codable, Sendable {
    public let items: [OperatorAction]
    public static let pageSize = 100
}

extension QueueReader {
    public func operatorLog(before: Int? = nil) async throws -> OperatorLogPage {
        try await document(OperatorLogPage.self, Queries.OperatorActionsPage.Page(before: before, limit: OperatorLogPage.pageSize))
    }
}
