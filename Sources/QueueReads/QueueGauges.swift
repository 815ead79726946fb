import Foundation

/// The queue as `discern monitor` exports it to Prometheus, whoever is working: per service,
/// what waits, runs and finished in the last 10 minutes, who serves it, and the night's
/// forecast (sql/functions/plan_until.sql). Every service named appears, at zero when idle, so
/// an alert never meets a missing series. Reads only the claimable and running partial indexes,
/// the finished_at index for the last 10 minutes, the worker registry and pg_stat_activity:
/// cheap on a table of millions of finished jobs.
public struct QueueGauges: Codable, Sendable, Equatable {
    public struct Queue: Codable, Sendable, Equatable {
        public let backend: String
        public let waiting: Int
        public let scheduled: Int
        public let running: Int
        public let oldestWaitingSeconds: Double
        public let succeededRecently: Int
        public let deadRecently: Int
        public let liveWorkers: Int
        /// How long the service has been found unavailable (its breaker open), nil while it is
        /// available; its failed probes meanwhile.
        public let unavailableSeconds: Double?
        public let probesFailed: Int
    }

    /// Seconds to the earliest and latest finish (nil: never at this pace), the jobs that will
    /// not finish before the window's end (nil without a window), and the share of the spend
    /// cap used in its period (1: reached; nil without a cap).
    public struct Forecast: Codable, Sendable, Equatable {
        public let backend: String
        public let finishEarlySeconds: Double?
        public let finishLateSeconds: Double?
        public let willNotFinish: Int?
        public let capUsedRatio: Double?
    }

    public let queues: [Queue]
    public let forecasts: [Forecast]
    /// How long the oldest transaction in this database has held back what vacuum may clean (0:
    /// none): sql/functions/oldest_snapshot_seconds.sql. Nil when the schema's owner may not see
    /// other roles' sessions (pg_read_all_stats).
    public let oldestSnapshotSeconds: Double?

    static let sql = """
        WITH waiting AS (
            SELECT backend, count(*) FILTER (WHERE run_at <= now()) AS waiting, count(*) FILTER (WHERE run_at > now()) AS scheduled,
                   extract(epoch FROM now() - min(run_at) FILTER (WHERE run_at <= now())) AS oldest
            FROM discern.jobs WHERE state = 'available' GROUP BY backend),
        running AS (SELECT backend, count(*) AS running FROM discern.jobs WHERE state = 'running' GROUP BY backend),
        recent AS (
            SELECT backend, count(*) FILTER (WHERE state = 'succeeded') AS succeeded, count(*) FILTER (WHERE state = 'dead') AS dead
            FROM discern.jobs WHERE finished_at > now() - interval '10 minutes' GROUP BY backend),
        live AS (SELECT unnest(backends) AS backend, count(*) AS workers FROM discern.live_workers GROUP BY 1),
        down AS (SELECT backend, extract(epoch FROM now() - opened_at) AS seconds, probes_failed FROM discern.service_breakers)
        SELECT jsonb_build_object(
          'queues', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                'backend', b.backend, 'waiting', coalesce(w.waiting, 0), 'scheduled', coalesce(w.scheduled, 0),
                'running', coalesce(r.running, 0), 'oldest_waiting_seconds', coalesce(w.oldest, 0),
                'succeeded_recently', coalesce(f.succeeded, 0), 'dead_recently', coalesce(f.dead, 0),
                'live_workers', coalesce(l.workers, 0), 'unavailable_seconds', d.seconds,
                'probes_failed', coalesce(d.probes_failed, 0)) ORDER BY b.backend), '[]')
              FROM unnest($1::text[]) AS b(backend)
              LEFT JOIN waiting w USING (backend) LEFT JOIN running r USING (backend)
              LEFT JOIN recent f USING (backend) LEFT JOIN live l USING (backend) LEFT JOIN down d USING (backend)),
          'forecasts', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                'backend', p.backend, 'finish_early_seconds', extract(epoch FROM p.finish_early - now()),
                'finish_late_seconds', extract(epoch FROM p.finish_late - now()), 'will_not_finish', p.will_not_finish,
                'cap_used_ratio', p.cap_used / nullif(p.cap_calls, 0)) ORDER BY p.backend), '[]')
              FROM discern.plan_until($2::timestamptz) p),
          'oldest_snapshot_seconds', discern.oldest_snapshot_seconds()) AS doc
        """
}

extension QueueReader {
    /// - Parameters:
    ///   - backends: the services to report, each at zero when idle.
    ///   - until: the end of the night's window, or nil for the forecast alone.
    public func gauges(backends: [String], until: Date?) async throws -> QueueGauges {
        try await document(QueueGauges.self, QueueGauges.sql, [backends, until.map { $0.formatted(.iso8601) }])
    }
}
