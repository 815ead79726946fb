import Foundation

/// Page 2: the newest batches with progress, rate, ETA, outcomes, top errors and bytes saved.
public struct BatchSummary: Codable, Sendable {
    public struct Outcome: Codable, Sendable { public let outcome: String; public let results: Int }
    public struct Error: Codable, Sendable { public let errorKind: String?; public let jobs: Int; public let example: String? }

    public let name: String
    public let createdAt: String
    public let jobs: Int
    public let available: Int
    public let running: Int
    public let succeeded: Int
    public let dead: Int
    public let cancelled: Int
    /// Jobs finished in the last 10 minutes, per minute.
    public let perMinute: Double
    public let originalBytes: Int
    public let sentBytes: Int
    public let outcomes: [Outcome]
    public let errors: [Error]

    public var done: Int { succeeded + dead + cancelled }
    public var percentDone: Double { jobs == 0 ? 100 : 100 * Double(done) / Double(jobs) }
    /// Seconds until the rest is done at the current rate; nil when nothing moves.
    public var etaSeconds: Double? {
        let left = available + running
        return left == 0 || perMinute <= 0 ? nil : Double(left) / perMinute * 60
    }

    static let sql = """
        SELECT coalesce(json_agg(x ORDER BY x.created_at DESC), '[]') AS doc FROM (
          SELECT b.name, b.created_at, s.jobs, s.available, s.running, s.succeeded, s.dead, s.cancelled, s.per_minute,
                 coalesce(r.original_bytes, 0) AS original_bytes, coalesce(r.sent_bytes, 0) AS sent_bytes,
                 coalesce(r.outcomes, '[]') AS outcomes, coalesce(e.errors, '[]') AS errors
          FROM (SELECT id, name, created_at FROM discern.batches
                WHERE $1::text IS NULL OR name = $1 ORDER BY created_at DESC LIMIT $2) b
          CROSS JOIN LATERAL (
              SELECT count(*) AS jobs, count(*) FILTER (WHERE state = 'available') AS available,
                     count(*) FILTER (WHERE state = 'running') AS running, count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                     count(*) FILTER (WHERE state = 'dead') AS dead, count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
                     count(*) FILTER (WHERE finished_at > now() - interval '10 minutes') / 10.0 AS per_minute
              FROM discern.jobs WHERE batch_id = b.id) s
          LEFT JOIN LATERAL (
              SELECT sum(original_bytes) AS original_bytes, sum(sent_bytes) AS sent_bytes,
                     (SELECT json_agg(o ORDER BY o.results DESC) FROM (
                         SELECT coalesce(outcome, 'unknown') AS outcome, count(*) AS results FROM discern.results
                         WHERE batch_id = b.id GROUP BY 1) o) AS outcomes
              FROM discern.results WHERE batch_id = b.id) r ON true
          LEFT JOIN LATERAL (
              SELECT json_agg(e ORDER BY e.jobs DESC) AS errors FROM (
                  SELECT error_kind, count(*) AS jobs, left(max(last_error), 300) AS example FROM discern.jobs
                  WHERE batch_id = b.id AND state = 'dead' GROUP BY error_kind ORDER BY count(*) DESC LIMIT 5) e) e ON true
        ) x
        """
}

extension ConsoleStore {
    public func batches(named name: String? = nil, limit: Int = 20) async throws -> [BatchSummary] {
        try await document([BatchSummary].self, BatchSummary.sql, [name, limit])
    }
}
