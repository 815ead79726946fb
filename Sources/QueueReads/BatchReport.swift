import Foundation
import Postgres

/// What happened to one batch: outcomes per backend, the commonest errors, throughput, bytes
/// saved by preparation and calls made. `discern report` prints it as Markdown or JSON, the
/// console as its report page and `/api/report`.
public struct BatchReport: Codable, Sendable {
    public struct Backend: Codable, Sendable {
        public var backend: String
        public var jobs: Int
        public var succeeded: Int
        public var dead: Int
        public var cancelled: Int
        public var pending: Int
        /// Attempts that failed along the way, retried or not.
        public var failedAttempts: Int
        /// Calls made by the attempts that succeeded (retries within them included).
        public var apiCalls: Int
        public var originalBytes: Int
        public var sentBytes: Int
        public var passedThrough: Int
        public var averagePrepareMilliseconds: Double?
        public var averageAnalyzeMilliseconds: Double?
        public var outcomes: [String: Int]
    }

    public struct ErrorKind: Codable, Sendable {
        public var backend: String
        public var kind: String
        public var jobs: Int
        public var example: String
    }

    public var batch: String
    public var createdAt: String
    public var backends: [Backend]
    public var topErrors: [ErrorKind]
    /// From the batch's creation to its last finished job.
    public var elapsedSeconds: Double?
    /// Finished jobs per minute between the first and the last finish.
    public var jobsPerMinute: Double?
    /// Photos enqueued as near-duplicates of others in the batch (`enqueue --near-duplicates
    /// last`), how many of them were not analysed (cancelled or still waiting), and the calls
    /// that saved (the batch's calls per analysed job, at least one).
    public var nearDuplicates: Int = 0
    public var nearDuplicatesNotAnalysed: Int = 0
    public var callsSaved: Int = 0

    public var totalJobs: Int { backends.reduce(0) { $0 + $1.jobs } }
    public var bytesSaved: Int { backends.reduce(0) { $0 + $1.originalBytes - $1.sentBytes } }

    static func load(_ connection: Connection, batch name: String) throws -> BatchReport {
        guard let batch = try connection.query(
            """
            SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created,
                   extract(epoch FROM created_at)::float8 AS created_epoch
            FROM discern.batches WHERE name = $1
            """,
            [name]).first else { throw ReadError.notFound }
        let id = try batch.int("id"), createdEpoch = try batch.optionalDouble("created_epoch") ?? 0
        var backends: [String: Backend] = [:]
        var finishes = Finishes()
        for row in try connection.query("""
            SELECT backend, count(*) AS jobs,
                   count(*) FILTER (WHERE state = 'succeeded') AS succeeded, count(*) FILTER (WHERE state = 'dead') AS dead,
                   count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
                   count(*) FILTER (WHERE state IN ('available', 'running')) AS pending,
                   count(finished_at) AS finished, extract(epoch FROM min(finished_at))::float8 AS first_finished,
                   extract(epoch FROM max(finished_at))::float8 AS last_finished
            FROM discern.jobs WHERE batch_id = $1 GROUP BY backend
            """, [id]) {
            let backend = try row.string("backend")
            finishes.add(count: try row.int("finished"), first: try row.optionalDouble("first_finished"),
                         last: try row.optionalDouble("last_finished"))
            backends[backend] = Backend(
                backend: backend, jobs: try row.int("jobs"), succeeded: try row.int("succeeded"), dead: try row.int("dead"),
                cancelled: try row.int("cancelled"), pending: try row.int("pending"), failedAttempts: 0,
                apiCalls: 0, originalBytes: 0, sentBytes: 0, passedThrough: 0, outcomes: [:])
        }
        // A query of its own, so that the count above can run in parallel: only jobs that failed
        // along the way have a history (a small partial index).
        for row in try connection.query("""
            SELECT backend, sum(jsonb_array_length(error_history))::bigint AS failed_attempts
            FROM discern.jobs WHERE batch_id = $1 AND error_history <> '[]'::jsonb GROUP BY backend
            """, [id]) {
            backends[try row.string("backend")]?.failedAttempts = try row.int("failed_attempts")
        }
        // Results outlive pruned jobs: their figures come from the results' per-batch roll-up
        // (a 500,000-result batch is a few rows there).
        for row in try connection.query("""
            SELECT backend, sum(results)::bigint AS results, sum(api_calls)::bigint AS api_calls,
                   sum(original_bytes)::bigint AS original_bytes, sum(sent_bytes)::bigint AS sent_bytes,
                   sum(passed_through)::bigint AS passed_through,
                   sum(prepare_ms_sum) / sum(results) AS prepare_ms, sum(analyze_ms_sum) / sum(results) AS analyze_ms
            FROM discern.results_per_batch WHERE batch_id = $1 GROUP BY backend
            """, [id]) {
            let name = try row.string("backend")
            var entry = backends[name] ?? Backend(backend: name, jobs: 0, succeeded: 0, dead: 0, cancelled: 0, pending: 0,
                                                  failedAttempts: 0, apiCalls: 0, originalBytes: 0, sentBytes: 0, passedThrough: 0,
                                                  outcomes: [:])
            entry.succeeded = max(entry.succeeded, try row.int("results"))
            entry.jobs = max(entry.jobs, entry.succeeded + entry.dead + entry.cancelled + entry.pending)
            entry.apiCalls = try row.int("api_calls")
            entry.originalBytes = try row.int("original_bytes")
            entry.sentBytes = try row.int("sent_bytes")
            entry.passedThrough = try row.int("passed_through")
            entry.averagePrepareMilliseconds = try row.optionalDouble("prepare_ms")
            entry.averageAnalyzeMilliseconds = try row.optionalDouble("analyze_ms")
            backends[name] = entry
        }
        for row in try connection.query("""
            SELECT backend, outcome, results FROM discern.results_per_batch WHERE batch_id = $1
            """, [id]) {
            backends[try row.string("backend")]?.outcomes[try row.string("outcome")] = try row.int("results")
        }
        let errors = try connection.query("""
            SELECT backend, coalesce(error_kind, 'unknown') AS kind, count(*) AS jobs,
                   coalesce((array_agg(last_error ORDER BY finished_at DESC))[1], '') AS example
            FROM discern.jobs WHERE batch_id = $1 AND state = 'dead'
            GROUP BY 1, 2 ORDER BY 3 DESC, 2 LIMIT 10
            """, [id]).map { row in
            ErrorKind(backend: try row.string("backend"), kind: try row.string("kind"), jobs: try row.int("jobs"),
                      example: String(try row.string("example").prefix(200)))
        }
        // Results whose job was pruned count as finished at their creation (a small partial index).
        if let pruned = try connection.query("""
            SELECT count(*) AS n, extract(epoch FROM min(created_at))::float8 AS first, extract(epoch FROM max(created_at))::float8 AS last
            FROM discern.results WHERE batch_id = $1 AND job_id IS NULL
            """, [id]).first {
            finishes.add(count: try pruned.int("n"), first: try pruned.optionalDouble("first"), last: try pruned.optionalDouble("last"))
        }
        var report = BatchReport(batch: name, createdAt: try batch.string("created"), backends: backends.values.sorted { $0.backend < $1.backend },
                                 topErrors: errors, elapsedSeconds: finishes.last.map { $0 - createdEpoch },
                                 jobsPerMinute: finishes.perMinute)
        // Calls a job takes: the batch's own, else its service's over the last 7 days.
        if let near = try connection.query("""
            SELECT count(*) AS n, count(*) FILTER (WHERE j.state IN ('available', 'cancelled')) AS left_out,
                   coalesce((SELECT round(avg(r.api_calls)) FROM discern.results r WHERE r.batch_id = $1 AND r.api_calls > 0),
                            (SELECT round(avg(r.api_calls)) FROM discern.results r
                             WHERE r.backend = min(j.backend) AND r.api_calls > 0 AND r.created_at > now() - interval '7 days'), 1)::bigint AS per_job
            FROM discern.jobs j WHERE j.batch_id = $1 AND j.near_duplicate_of IS NOT NULL
            """, [id]).first {
            report.nearDuplicates = try near.int("n")
            report.nearDuplicatesNotAnalysed = try near.int("left_out")
            report.callsSaved = report.nearDuplicatesNotAnalysed * max(1, try near.int("per_job"))
        }
        return report
    }
}

extension QueueReader {
    /// Throws `ReadError.notFound` when there is no batch of that name.
    public func report(batch name: String) async throws -> BatchReport {
        try await reading { try BatchReport.load($0, batch: name) }
    }
}

/// When a batch's jobs (and results whose job was pruned) finished: counted with the jobs'
/// states in one pass over the batch's index instead of a second one.
private struct Finishes {
    var count = 0
    var first: Double?
    var last: Double?

    mutating func add(count: Int, first: Double?, last: Double?) {
        self.count += count
        if let first { self.first = Swift.min(self.first ?? first, first) }
        if let last { self.last = Swift.max(self.last ?? last, last) }
    }

    /// Finished jobs per minute between the first and the last finish.
    var perMinute: Double? {
        guard let first, let last, last > first else { return nil }
        return Double(count) / ((last - first) / 60)
    }
}
