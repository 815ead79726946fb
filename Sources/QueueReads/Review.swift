import Foundation

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

    static let sql = """
        SELECT json_build_object(
          'threshold', $1::float8,
          'items', (SELECT coalesce(json_agg(x ORDER BY x.confidence, x.id), '[]') FROM (
                SELECT \(ResultPage.Card.columns)
                FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
                WHERE r.confidence IS NOT NULL AND r.confidence < $1
                  AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)
                ORDER BY r.confidence, r.id LIMIT $2) x),
          'audit', (SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]') FROM (
                SELECT \(ResultPage.Card.columns)
                FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
                WHERE r.audit AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)
                ORDER BY r.id DESC LIMIT $2) x),
          'audit_pending', (SELECT count(*) FROM discern.results r
                            WHERE r.audit AND r.created_at > now() - interval '7 days'
                              AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)),
          'reviewed_today', (SELECT count(*) FROM discern.corrections WHERE corrected_at > date_trunc('day', now()))
        ) AS doc
        """
}

extension QueueReader {
    public func reviewQueue(threshold: Double, limit: Int = 24) async throws -> ReviewQueue {
        try await document(ReviewQueue.self, ReviewQueue.sql, [threshold, limit])
    }
}
