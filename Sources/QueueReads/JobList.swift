import Foundation
import Postgres
import SQLSchema

/// Jobs, newest first, filtered by state, batch, error kind, service, file name or day:
/// `discern jobs` and the console's jobs page. Keyset pages (`before` the last id shown), never
/// OFFSET. What a filter matches is discern.matching_jobs (sql/functions), as for the actions.
public struct JobList: Codable, Sendable {
    public struct Line: Codable, Sendable {
        public let id: Int
        public let state: String
        public let service: String
        public let action: String
        public let batch: String?
        public let imagePath: String
        public let attempts: Int
        public let maxAttempts: Int
        public let priority: Int
        public let errorKind: String?
        public let lastError: String?
        public let runAt: String
        public let createdAt: String
        public let updatedAt: String
        public let finishedAt: String?
    }

    public let items: [Line]
    /// Older jobs match the filter beyond this page.
    public let hasOlder: Bool
}

/// What the jobs list is asked for.
public struct JobFilter: Sendable, Equatable {
    public static let pageSize = 50
    public var state: String?
    public var batch: String?
    public var errorKind: String?
    public var service: String?
    /// The start of the file's name, case aside.
    public var file: String?
    /// Enqueued on or after / on or before these days (YYYY-MM-DD).
    public var fromDay: String?
    public var toDay: String?
    public var before: Int?
    public var limit = JobFilter.pageSize

    public init(
        state: String? = nil, batch: String? = nil, errorKind: String? = nil, service: String? = nil,
        file: String? = nil, fromDay: String? = nil, toDay: String? = nil, before: Int? = nil, limit: Int = JobFilter.pageSize
    ) {
        (self.state, self.batch, self.errorKind, self.service) = (state, batch, errorKind, service)
        (self.file, self.fromDay, self.toDay, self.before, self.limit) = (file, fromDay, toDay, before, limit)
    }

    /// A day as the filter takes it, or nil: YYYY-MM-DD, a day that exists (2026-02-30 does not).
    public static func day(_ text: String?) -> String? {
        guard let text, text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil,
            let date = try? Date("\(text)T00:00:00Z", strategy: .iso8601),
            date.formatted(.iso8601.year().month().day()) == text
        else { return nil }
        return text
    }

    var statement: Queries.JobList.Page {
        Queries.JobList.Page(
            state: state, batch: batch, errorKind: errorKind, service: service, file: file, fromDay: Self.day(fromDay), toDay: Self.day(toDay),
            before: before, limit: min(max(limit, 1), 10_000))
    }
}

extension JobList {
    /// The `before` of the next page; nil on the last.
    public func nextBefore(_ filter: JobFilter) -> Int? { hasOlder ? items.last?.id : nil }
}

extension QueueReader {
    public func jobs(_ filter: JobFilter) async throws -> JobList {
        try await document(JobList.self, filter.statement)
    }
}
