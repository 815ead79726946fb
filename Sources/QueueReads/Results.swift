import Foundation
import Postgres
import SQLSchema

/// Page 3: results as cards, newest first, filtered, a page at a time by keyset (`before` the
/// last id shown), never OFFSET: page 1,000 costs what page 1 costs.
public struct ResultPage: Codable, Sendable {
    public struct Card: Codable, Sendable {
        public let id: Int
        public let jobId: Int?
        public let batch: String?
        public let imagePath: String
        public let service: String
        public let action: String
        public let outcome: String?
        public let subjectId: String?
        public let category: String?
        public let operator_: String?
        public let fleetId: String?
        public let licensePlate: String?
        public let confidence: Double?
        public let originalBytes: Int
        public let sentBytes: Int
        public let passedThrough: Bool
        /// The model or provider the answer names (nil for results from before migration 38).
        public let model: String?
        public let createdAt: String

        enum CodingKeys: String, CodingKey {
            case id, jobId, batch, imagePath, service, action, outcome, subjectId, category, operator_ = "operator", fleetId, licensePlate
            case confidence, originalBytes, sentBytes, passedThrough, model, createdAt
        }
    }

    public let items: [Card]
    /// The `before` of the next page; nil on the last.
    public func nextBefore(_ filter: ResultFilter) -> Int? { items.count == filter.limit ? items.last?.id : nil }
}

/// What the results page is asked for (its query string).
public struct ResultFilter: Sendable, Equatable {
    public static let pageSize = 48
    public var before: Int?
    public var batch: String?
    public var service: String?
    public var outcome: String?
    public var operatorName: String?
    /// A licence plate or fleet ID, or its beginning (case does not matter).
    public var text: String?
    public var minConfidence: Double?
    public var maxConfidence: Double?
    /// YYYY-MM-DD, inclusive.
    public var from: String?
    public var to: String?
    /// One photo's answers, over time (its path exactly).
    public var imagePath: String?
    /// A page of the console; the CLI asks for up to 10,000.
    public var limit = ResultFilter.pageSize

    public init() {}

    var statement: Queries.Results.Page {
        Queries.Results.Page(
            before: before, batch: batch, service: service, outcome: outcome, operatorName: operatorName,
            platePattern: text.map(Self.prefixPattern), minConfidence: minConfidence, maxConfidence: maxConfidence, from: from, to: to,
            limit: min(max(limit, 1), 10_000), imagePath: imagePath)
    }

    /// A LIKE pattern matching what begins with `text`: its own `%`, `_` and `\` match themselves.
    static func prefixPattern(_ text: String) -> String {
        var pattern = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }
}

extension QueueReader {
    public func results(_ filter: ResultFilter) async throws -> ResultPage {
        try await document(ResultPage.self, filter.statement)
    }
}
