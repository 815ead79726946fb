import Foundation

/// Page 2: the newest batches with progress, rate, ETA, outcomes, top errors and bytes saved.
public struct BatchSummary: Codable, Sendable {
    public struct Outcome: Codable, Sendable { public let outcome: String; public let results: Int }
    public struct Error: Codable, Sendable { public let errorKind: String?; public let jobs: Int; public let example: String? }

    public let id: Int
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
    /// Seconds from the first finished job to the last one.
    public let finishingSeconds: Double?
    public let originalBytes: Int
    public let sentBytes: Int
    public let outcomes: [Outcome]
    public let errors: [Error]
    /// No worker has heartbeated lately: whatever the last minutes' rate, nothing moves now.
    public let noLiveWorker: Bool
    /// The batch's last end as announced (migration 0031), and its deliveries; nil while it has
    /// not ended (or settled).
    public let notification: Notification?

    public struct Notification: Codable, Sendable {
        public let announcedAt: String
        public let delivered: Int
        public let pending: Int
        public let failed: Int
        /// The latest failure a delivery met, if any (it names the destination, never its URL).
        public let lastError: String?

        /// "delivered", "delivered 1 of 2, 1 retrying: …", "no destination": for a table cell.
        public var summary: String {
            let total = delivered + pending + failed
            if total == 0 { return "no destination" }
            if delivered == total { return total == 1 ? "delivered" : "delivered to \(total)" }
            var parts = delivered > 0 ? ["delivered \(delivered) of \(total)"] : []
            if pending > 0 { parts.append("\(pending) retrying") }
            if failed > 0 { parts.append("\(failed) given up") }
            return parts.joined(separator: ", ") + (lastError.map { ": \($0.prefix(120))" } ?? "")
        }
    }

    public var done: Int { succeeded + dead + cancelled }
    public var isFinished: Bool { available + running == 0 }
    public var percentDone: Double { jobs == 0 ? 100 : 100 * Double(done) / Double(jobs) }
    /// Seconds until the rest is done at the current rate; nil when nothing moves (no rate, or
    /// no live worker to keep it).
    public var etaSeconds: Double? {
        let left = available + running
        return left == 0 || perMinute <= 0 || noLiveWorker ? nil : Double(left) / perMinute * 60
    }
    /// Every job was cancelled before it ran: not a finished batch to be green about.
    public var isCancelledWhole: Bool { jobs > 0 && cancelled == jobs }
    /// A finished batch's pace from its first to its last finished job, per minute.
    public var averagePerMinute: Double? {
        guard let seconds = finishingSeconds, seconds > 0 else { return nil }
        return Double(done) / seconds * 60
    }

    /// The summary itself comes from discern.batch_summary, which keeps the
    /// summaries of finished batches until they change, and a running batch's for 10 s.
    static let sql = """
        SELECT coalesce(json_agg(jsonb_build_object('id', b.id, 'name', b.name, 'created_at', b.created_at, 'finishing_seconds',
                                     extract(epoch FROM (s.doc ->> 'last_finished_at')::timestamptz - (s.doc ->> 'first_finished_at')::timestamptz))
                                 || jsonb_build_object('no_live_worker', w.none, 'notification', n.doc)
                                 || s.doc ORDER BY b.created_at DESC, b.id DESC), '[]') AS doc
        FROM (SELECT id, name, created_at FROM discern.batches
              WHERE ($1::text IS NULL OR name = $1)
                AND ($3::bigint IS NULL OR (created_at, id) < (SELECT o.created_at, o.id FROM discern.batches o WHERE o.id = $3))
              ORDER BY created_at DESC, id DESC LIMIT $2) b
        CROSS JOIN LATERAL (SELECT discern.batch_summary(b.id) AS doc) s
        CROSS JOIN (SELECT NOT EXISTS (SELECT 1 FROM discern.live_workers) AS none) w
        LEFT JOIN LATERAL (
            SELECT jsonb_build_object('announced_at', e.created_at,
                                      'delivered', count(d.event_id) FILTER (WHERE d.state = 'delivered'),
                                      'pending', count(d.event_id) FILTER (WHERE d.state = 'pending'),
                                      'failed', count(d.event_id) FILTER (WHERE d.state = 'failed'),
                                      'last_error', (array_agg(d.last_error ORDER BY d.next_attempt_at DESC) FILTER (WHERE d.state <> 'delivered'))[1]) AS doc
            FROM (SELECT id, created_at FROM discern.batch_events WHERE batch_id = b.id AND NOT report ? 'before_notifications'
                  ORDER BY id DESC LIMIT 1) e
            LEFT JOIN discern.notification_deliveries d ON d.event_id = e.id
            GROUP BY e.id, e.created_at) n ON true
        """
}

/// Where one batch stands, read fresh (no cached summary): for `discern batches wait`.
public struct BatchState: Codable, Sendable {
    public let name: String
    public let jobs: Int
    public let waiting: Int
    public let dead: Int
    public var isFinished: Bool { waiting == 0 }

    /// Whether anything is left is one look at the batch's index; the dead are counted from
    /// their own partial index, the jobs only once it is done.
    static let sql = """
        SELECT jsonb_build_object('name', b.name, 'waiting', w.n, 'dead', (SELECT count(*) FROM discern.jobs j WHERE j.batch_id = b.id AND j.state = 'dead'),
                                  'jobs', CASE WHEN w.n = 0 THEN (SELECT count(*) FROM discern.jobs j WHERE j.batch_id = b.id) ELSE -1 END) AS doc
        FROM discern.batches b
        CROSS JOIN LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM discern.jobs j WHERE j.batch_id = b.id AND j.state IN ('available', 'running') LIMIT 1) x) w
        WHERE b.name = $1
        """
}

extension QueueReader {
    /// Throws `ReadError.notFound` when there is no batch of that name.
    public func batchState(named name: String) async throws -> BatchState {
        try await document(BatchState.self, BatchState.sql, [name])
    }

    /// The newest `limit` batches, or those older than the batch `before` (keyset pages).
    public func batches(named name: String? = nil, before: Int? = nil, limit: Int = BatchSummary.pageSize) async throws -> [BatchSummary] {
        try await document([BatchSummary].self, BatchSummary.sql, [name, limit, before])
    }
}

extension BatchSummary {
    public static let pageSize = 10
}
