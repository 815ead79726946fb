import Foundation

/// Page 5: dead jobs grouped by error kind (with the message a person can act on), the newest
/// dead jobs, and the jobs failing right now (waiting for a retry after an error).
public struct Failures: Codable, Sendable {
    public struct Kind: Codable, Sendable {
        public let backend: String; public let errorKind: String?; public let jobs: Int; public let example: String?
        public let lastSeen: String?
    }
    public struct JobLine: Codable, Sendable {
        public let id: Int; public let backend: String; public let batch: String?; public let imagePath: String
        public let attempts: Int; public let maxAttempts: Int; public let errorKind: String?; public let lastError: String?
        public let at: String?
    }

    public let kinds: [Kind]
    public let recentDead: [JobLine]
    public let failing: [JobLine]

    static let sql = """
        SELECT json_build_object(
          'kinds', (SELECT coalesce(json_agg(x ORDER BY x.jobs DESC), '[]') FROM (
                SELECT backend, error_kind, jobs, left(example, 500) AS example, last_seen FROM discern.errors_by_kind) x),
          'recent_dead', (SELECT coalesce(json_agg(x), '[]') FROM (
                SELECT j.id, j.backend, b.name AS batch, j.image_path, j.attempts, j.max_attempts, j.error_kind,
                       left(j.last_error, 500) AS last_error, j.finished_at AS at
                FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
                WHERE j.state = 'dead' ORDER BY j.finished_at DESC NULLS LAST LIMIT 50) x),
          'failing', (SELECT coalesce(json_agg(x), '[]') FROM (
                SELECT j.id, j.backend, b.name AS batch, j.image_path, j.attempts, j.max_attempts, j.error_kind,
                       left(j.last_error, 500) AS last_error, j.run_at AS at
                FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
                WHERE j.state = 'available' AND j.error_kind IS NOT NULL ORDER BY j.run_at LIMIT 50) x)
        ) AS doc
        """
}

extension QueueReader {
    public func failures() async throws -> Failures { try await document(Failures.self, Failures.sql) }
}
