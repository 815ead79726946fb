import Postgres
import SQLSchema

/// Deleting what has finished, one chunk per call (`discern prune`, docs/sql.md). Each call is
/// one short transaction that skips locked rows, so workers never wait for it.
public enum Pruning {
    public enum Target: Sendable {
        /// Finished jobs (succeeded, dead, cancelled); their results are kept.
        case jobs
        /// Results, with their entities and corrections.
        case results
        /// One service's results' raw answers (retention): dropped, the rest of each result kept.
        case rawResponses(service: String)
        /// One service's results (retention), with their entities and corrections.
        case serviceResults(service: String)
    }

    /// A service's retention (discern.retention, its own row else `*`): days after which its
    /// results' raw answers are dropped, and the results deleted; nil keeps them.
    public struct Retention: Sendable, Equatable {
        public let service: String
        public let rawResponseDays: Int?
        public let resultsDays: Int?
    }

    public static func retention(_ connection: Connection, services: [String]) throws -> [Retention] {
        try connection.run(Queries.Pruning.Retention(services: BinaryArray(services))).map {
            Retention(service: $0.service, rawResponseDays: $0.rawResponseDays, resultsDays: $0.resultsDays)
        }
    }

    /// Deletes (or, for raw answers, redacts) at most `chunk` rows older than `days` days; returns
    /// how many it changed.
    public static func chunk(_ connection: Connection, _ target: Target, olderThanDays days: Int, chunk: Int) throws -> Int {
        switch target {
        case .jobs: return try connection.run(Queries.Pruning.Jobs(olderThan: "\(days) days", chunk: chunk)).first?.deleted ?? 0
        case .results: return try connection.run(Queries.Pruning.Results(olderThan: "\(days) days", chunk: chunk)).first?.deleted ?? 0
        case .rawResponses(let service):
            return try connection.run(Queries.Pruning.ServiceChunk(part: "raw", service: service, olderThan: "\(days) days", chunk: chunk)).first?
                .changed ?? 0
        case .serviceResults(let service):
            return try connection.run(Queries.Pruning.ServiceChunk(part: "results", service: service, olderThan: "\(days) days", chunk: chunk))
                .first?.changed ?? 0
        }
    }
}
