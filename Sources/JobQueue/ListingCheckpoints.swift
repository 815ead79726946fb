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
        guard let row = try connection.run(Queries.ListingCheckpoints.Find(listing: listing, keptSeconds: keptSeconds)).first else { return nil }
        return Checkpoint(afterKey: row.afterKey, listed: row.listed, added: row.added, ageSeconds: row.ageSeconds)
    }

    /// Inside the transaction that enqueued the page ending at `afterKey`.
    public static func save(_ connection: Connection, listing: String, afterKey: String, listed: Int, added: Int) throws {
        try connection.run(Queries.ListingCheckpoints.Save(listing: listing, afterKey: afterKey, listed: listed, added: added))
    }

    public static func forget(_ connection: Connection, listing: String) throws {
        try connection.run(Queries.ListingCheckpoints.Forget(listing: listing))
    }
}
