import Foundation

/// Page 6: the least confident results nobody has reviewed yet, first.
public struct ReviewQueue: Codable, Sendable {
    public let threshold: Double
    public let items: [ResultPage.Card]
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
          'reviewed_today', (SELECT count(*) FROM discern.corrections WHERE corrected_at > date_trunc('day', now()))
        ) AS doc
        """
}

extension QueueReader {
    public func reviewQueue(threshold: Double, limit: Int = 24) async throws -> ReviewQueue {
        try await document(ReviewQueue.self, ReviewQueue.sql, [threshold, limit])
    }
}
