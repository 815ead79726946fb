import Foundation

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

    static let sql = """
        SELECT json_build_object('items', coalesce(json_agg(x ORDER BY x.at DESC, x.id DESC), '[]')) AS doc FROM (
          SELECT id, at, actor, action, scope, jobs FROM discern.operator_actions
          WHERE $1::bigint IS NULL OR (at, id) < (SELECT o.at, o.id FROM discern.operator_actions o WHERE o.id = $1)
          ORDER BY at DESC, id DESC LIMIT $2) x
        """
}

extension QueueReader {
    public func operatorLog(before: Int? = nil) async throws -> OperatorLogPage {
        try await document(OperatorLogPage.self, OperatorLogPage.sql, [before, OperatorLogPage.pageSize])
    }
}
