import Postgres

/// How many jobs of each backend are in each state, as the worker's metrics and `discern
/// monitor` export them (what people read is QueueReads').
public enum QueueStatus {
    public struct Depth: Sendable, Equatable {
        public let backend: String
        public let state: String
        public let jobs: Int
    }

    /// Waiting and running jobs only, each counted through its partial index (the state a
    /// constant, so waiting jobs are counted from the index's entries alone): what every worker
    /// may sample often.
    public static func liveDepth(_ connection: Connection) throws -> [Depth] {
        try connection.query(prepared: """
            SELECT backend, 'available' AS state, count(*) AS jobs FROM discern.jobs WHERE state = 'available' GROUP BY 1
            UNION ALL SELECT backend, 'running', count(*) FROM discern.jobs WHERE state = 'running' GROUP BY 1
            """).map(Depth.init)
    }
}

extension QueueStatus.Depth {
    init(_ row: Row) throws {
        self.init(backend: try row.string("backend"), state: try row.string("state"), jobs: try row.int("jobs"))
    }
}

extension QueueStatus {
    /// One backend's queue as the monitor exports it: what waits, what runs, what finished in
    /// the last 10 minutes, and who serves it. Every backend appears, at zero when idle, so an
    /// alert never meets a missing series.
    public struct Overview: Sendable, Equatable {
        public let backend: String
        public let waiting: Int
        public let scheduled: Int
        public let running: Int
        public let oldestWaitingSeconds: Double
        public let succeededRecently: Int
        public let deadRecently: Int
        public let liveWorkers: Int
    }

    /// Every one of `backends` appears, at zero when idle. Reads only the claimable and running partial indexes, the finished_at index for the last
    /// 10 minutes and the worker registry: cheap on a table of millions of finished jobs.
    public static func overview(_ connection: Connection, backends: [String]) throws -> [Overview] {
        try connection.query("""
            WITH waiting AS (
                SELECT backend, count(*) FILTER (WHERE run_at <= now()) AS waiting, count(*) FILTER (WHERE run_at > now()) AS scheduled,
                       extract(epoch FROM now() - min(run_at) FILTER (WHERE run_at <= now())) AS oldest
                FROM discern.jobs WHERE state = 'available' GROUP BY backend),
            running AS (SELECT backend, count(*) AS running FROM discern.jobs WHERE state = 'running' GROUP BY backend),
            recent AS (
                SELECT backend, count(*) FILTER (WHERE state = 'succeeded') AS succeeded, count(*) FILTER (WHERE state = 'dead') AS dead
                FROM discern.jobs WHERE finished_at > now() - interval '10 minutes' GROUP BY backend),
            live AS (SELECT unnest(backends) AS backend, count(*) AS workers FROM discern.live_workers GROUP BY 1)
            SELECT b.backend, coalesce(w.waiting, 0) AS waiting, coalesce(w.scheduled, 0) AS scheduled,
                   coalesce(r.running, 0) AS running, coalesce(w.oldest, 0)::float8 AS oldest,
                   coalesce(f.succeeded, 0) AS succeeded, coalesce(f.dead, 0) AS dead, coalesce(l.workers, 0) AS workers
            FROM unnest($1::text[]) AS b(backend)
            LEFT JOIN waiting w USING (backend) LEFT JOIN running r USING (backend)
            LEFT JOIN recent f USING (backend) LEFT JOIN live l USING (backend)
            ORDER BY b.backend
            """, [backends]).map { row in
            Overview(backend: try row.string("backend"), waiting: try row.int("waiting"), scheduled: try row.int("scheduled"),
                     running: try row.int("running"), oldestWaitingSeconds: try row.optionalDouble("oldest") ?? 0,
                     succeededRecently: try row.int("succeeded"), deadRecently: try row.int("dead"), liveWorkers: try row.int("workers"))
        }
    }
}

extension QueueStatus {
    /// The night's plan as the monitor exports it (sql/functions/plan_until.sql): seconds to the
    /// earliest and latest finish (nil: never at this pace), and the jobs that will not finish
    /// before `until` (nil without a window).
    public struct PlanFigures: Sendable, Equatable {
        public let backend: String
        public let finishEarlySeconds: Double?
        public let finishLateSeconds: Double?
        public let willNotFinish: Int?
        /// The share of the spend cap used in its period (1: reached); nil without a cap.
        public let capUsedRatio: Double?
    }

    public static func plan(_ connection: Connection, until: String?) throws -> [PlanFigures] {
        try connection.query("""
            SELECT backend, extract(epoch FROM finish_early - now())::float8 AS early, extract(epoch FROM finish_late - now())::float8 AS late,
                   will_not_finish, (cap_used / nullif(cap_calls, 0))::float8 AS cap_ratio
            FROM discern.plan_until($1::timestamptz)
            """, [until]).map {
            PlanFigures(backend: try $0.string("backend"), finishEarlySeconds: try $0.optionalDouble("early"),
                        finishLateSeconds: try $0.optionalDouble("late"), willNotFinish: try $0.optionalInt("will_not_finish"),
                        capUsedRatio: try $0.optionalDouble("cap_ratio"))
        }
    }
}
