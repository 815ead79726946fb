import Foundation
import Postgres
import SQLSchema

/// The queue as `discern monitor` exports it to Prometheus, whoever is working: per service,
/// what waits, runs and finished in the last 10 minutes, who serves it, and the night's
/// forecast (sql/functions/plan_until.sql). Every service named appears, at zero when idle, so
/// an alert never meets a missing series. Reads only the claimable and running partial indexes,
/// the finished_at index for the last 10 minutes, the worker registry and pg_stat_activity:
/// cheap on a table of millions of finished jobs.
public struct QueueGauges: Codable, Sendable, Equatable {
    public struct Queue: Codable, Sendable, Equatable {
        public let service: String
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
        public let service: String
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
}

extension QueueReader {
    /// - Parameters:
    ///   - services: the services to report, each at zero when idle.
    ///   - until: the end of the night's window, or nil for the forecast alone.
    public func gauges(services: [String], until: Date?) async throws -> QueueGauges {
        try await document(
            QueueGauges.self, Queries.QueueGauges.Document(services: BinaryArray(services), until: until.map { $0.formatted(.iso8601) }))
    }
}
