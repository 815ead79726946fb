import Foundation
import SQLSchema

/// What happened to one batch: outcomes per service, the commonest errors, throughput, bytes
/// saved by preparation and calls made. `discern report` prints it as Markdown or JSON, the
/// console as its report page and `/api/report`.
public struct BatchReport: Codable, Sendable {
    public struct Service: Codable, Sendable {
        public var service: String
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
        public var service: String
        public var kind: String
        public var jobs: Int
        public var example: String
    }

    public var batch: String
    public var createdAt: String
    public var services: [Service]
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

    public var totalJobs: Int { services.reduce(0) { $0 + $1.jobs } }
    public var bytesSaved: Int { services.reduce(0) { $0 + $1.originalBytes - $1.sentBytes } }
}

extension QueueReader {
    /// Throws `ReadError.notFound` when there is no batch of that name.
    public func report(batch name: String) async throws -> BatchReport {
        try await document(BatchReport.self, Queries.BatchReport.Document(name: name))
    }
}
