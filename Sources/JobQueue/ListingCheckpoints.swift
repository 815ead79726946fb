import Postgres
import SQLSchema

/// Where an unfinished listing of a bucket's prefix stopped (migration 0037): written in the
/// transaction that enqueues each page, so the checkpoint never runs ahead of the jobs, nor
/// behind them.
public enum ListingCheckpoints {
    public struct Checkpoint: Sendable, Equatable {
        /// The last key enqueued: the listing resumes after it.
        public let afterKey: String
        public let listed: Int
        public let added: Int
        /// Seconds since it was last written.
        public let ageSeconds: Int
    }

    /// A checkpoint older than this is not resumed from: the retries of a CronJob or a unit,
    /// and an operator's the same morning, go on where the night stopped; a rerun later is
    /// likely meant to find what was added or restored since, under keys before the checkpoint
    /// too, and lists from the first key.
    public static let keptSeconds = 6 * 3_600.0

    public static func find(_ connection: Connection, listing: String) throws -> Checkpoint? {
        guard let row = try connection.query(Queries.ListingCheckpoints.find, [listing, keptSeconds]).first else { return nil }
        return Checkpoint(
            afterKey: try row.string("after_key"), listed: try row.int("listed"), added: try row.int("added"), ageSeconds: try row.int("age_seconds"))
    }

    /// Inside the transaction that enqueued the page ending at `afterKey`.
    public static func save(_ connection: Connection, listing: String, afterKey: String, listed: Int, added: Int) throws {
        try connection.query(Queries.ListingCheckpoints.save, [listing, afterKey, listed, added])
    }

    public static func forget(_ connection: Connection, listing: String) throws {
        try connection.query(Queries.ListingCheckpoints.forget, [listing])
    }
}
