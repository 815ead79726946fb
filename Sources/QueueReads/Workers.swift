import Foundation

/// The console's /workers: each worker of the last day, live or stopped, what it holds now
/// (running jobs leased to it) and since when. From discern.workers and the
/// running jobs' leases, never every job.
public struct WorkerList: Codable, Sendable {
    public struct Worker: Codable, Sendable {
        public let id: String; public let host: String; public let pid: Int; public let version: String
        public let backends: [String]; public let startedAt: String; public let lastHeartbeatAt: String
        public let stoppedAt: String?
        /// Heartbeating now (three missed heartbeats and it is taken for dead).
        public let live: Bool
        public let jobsHeld: Int
        /// When the oldest job it holds was last changed (claimed or heartbeated).
        public let holdingSince: String?
        /// Jobs it finished (succeeded or dead) since it started, and a minute over the last
        /// minute (nil until its second heartbeat), from its heartbeats.
        public let jobsFinished: Int
        public let jobsPerMinute: Double?
    }
    public let workers: [Worker]

    static let sql = """
        SELECT json_build_object('workers', coalesce(json_agg(x ORDER BY x.live DESC, x.started_at DESC), '[]')) AS doc FROM (
          SELECT w.id, w.host, w.pid, w.version, w.backends, w.started_at, w.last_heartbeat_at, w.stopped_at,
                 (w.stopped_at IS NULL AND w.last_heartbeat_at > now() - make_interval(secs => 3 * w.heartbeat_seconds)) AS live,
                 coalesce(h.jobs, 0) AS jobs_held, h.oldest AS holding_since, w.jobs_finished, w.jobs_per_minute
          FROM discern.workers w
          LEFT JOIN (SELECT lease_owner, count(*) AS jobs, min(updated_at) AS oldest FROM discern.jobs
                     WHERE state = 'running' GROUP BY lease_owner) h ON h.lease_owner = w.id
          WHERE w.stopped_at IS NULL OR w.stopped_at > now() - interval '24 hours'
          ORDER BY w.started_at DESC LIMIT 200) x
        """
}

extension QueueReader {
    public func workers() async throws -> WorkerList {
        try await document(WorkerList.self, WorkerList.sql, [])
    }
}
