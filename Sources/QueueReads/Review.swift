import Foundation
import SQLSchema

/// The review page: two queues kept apart. The audit queue holds the uniform random sample of
/// results nobody has reviewed, newest first (which of the sample a person
/// reviews does not bias it; the newest keep the figures current): measured accuracy comes
/// from it alone. The low-confidence queue holds the least confident results not reviewed yet: it
/// catches errors, but as a sample it is biased by construction.
public struct ReviewQueue: Codable, Sendable {
    public let threshold: Double
    /// Low-confidence results, least confident first.
    public let items: [ResultPage.Card]
    /// Audited results not reviewed yet, newest first.
    public let audit: [ResultPage.Card]
    /// How many audited results of the last 7 days wait for a review.
    public let auditPending: Int
    public let reviewedToday: Int
}

extension QueueReader {
    public func reviewQueue(threshold: Double, limit: Int = 24) async throws -> ReviewQueue {
        try await document(ReviewQueue.self, Queries.Review.Queue(threshold: threshold, limit: limit))
    }
}
