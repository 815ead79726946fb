import Crypto
import Foundation
import JobQueue
import ObjectStorage
import Postgres

/// `discern enqueue s3://bucket/prefix/`: lists the prefix a page (1,000 keys) at a time, keeps
/// the keys the finder's extension filter and globs take (matched against the key relative to
/// the prefix, as a folder's files are), keys each by its ETag and size (`ContentKey`), and
/// enqueues each page in a transaction of its own, so workers start on the first page at once,
/// memory stays bounded whatever the count, and a rerun adds none of what it added.
///
/// That transaction also records the page's last key (`ListingCheckpoints`): a run cut short
/// (the store away longer than a page's retries, the process killed) is resumed by the same
/// enqueue run again, from the key after it, unless `fromStart`. Objects in an archive storage
/// class that were not restored are not enqueued (a worker could not read them): they are
/// counted by class, for the report.
public struct ObjectEnqueuer: Sendable {
    let store: ObjectStore
    let prefix: ObjectPrefix
    let request: Enqueuer.Request
    let fromStart: Bool

    public init(store: ObjectStore, prefix: ObjectPrefix, request: Enqueuer.Request, fromStart: Bool = false) {
        (self.store, self.prefix, self.request, self.fromStart) = (store, prefix, request, fromStart)
    }

    /// What a run of one prefix did, beside what every enqueue reports.
    public struct Listing: Sendable {
        public var summary = Enqueuer.Summary()
        /// Where an earlier run stopped, when this one went on from there.
        public var resumed: ListingCheckpoints.Checkpoint?
        /// Objects left out because they are archived, by storage class, and the first of them.
        public var archived: [String: Int] = [:]
        public var firstArchived: String?
    }

    public func run(into database: Database, progress: @escaping @Sendable (Int) -> Void) async throws -> Listing {
        let name = listingName
        var listing = Listing()
        let fromStart = self.fromStart
        listing.resumed = try await database.withConnection { connection in
            if fromStart { try ListingCheckpoints.forget(connection, listing: name) }
            return fromStart ? nil : try ListingCheckpoints.find(connection, listing: name)
        }
        var listed = listing.resumed?.listed ?? 0, addedInAll = listing.resumed?.added ?? 0
        var token: String?
        var lastKey = listing.resumed?.afterKey
        repeat {
            let page = try await nextPage(after: token, startAfter: token == nil ? listing.resumed?.afterKey : nil, lastKey: lastKey)
            let readable = page.entries.filter { entry in
                guard entry.isArchived, takes(entry) else { return true }
                listing.archived[entry.storageClass ?? "?", default: 0] += 1
                if listing.firstArchived == nil { listing.firstArchived = "s3://\(prefix.bucket)/\(entry.key)" }
                return false
            }
            let taken = readable.filter(takes)
            let files = taken.compactMap(file)
            listing.summary.found += taken.count
            listing.summary.unreadable += taken.filter { ObjectAddress(bucket: prefix.bucket, key: $0.key) == nil }
                .map { "s3://\(prefix.bucket)/\($0.key): not a key a job can name (over 1,024 bytes)" }
            listed += page.entries.count
            // The last key the checkpoint can hold (a key with a NUL, or longer than any a job
            // can name, cannot be a text of the database's).
            let request = self.request, soFar = (listed, addedInAll)
            let pageLast = page.entries.last { !$0.key.utf8.contains(0) && $0.key.count <= 1_024 }?.key
            let added = try await database.withConnection { connection in
                try connection.transaction { connection in
                    let added =
                        files.isEmpty
                        ? 0
                        : try JobQueue.enqueueInTransaction(
                            connection, files: files, service: request.service, action: request.action, batch: request.batch,
                            priority: request.priority, paramsJSON: request.paramsJSON)
                    if let pageLast {
                        try ListingCheckpoints.save(connection, listing: name, afterKey: pageLast, listed: soFar.0, added: soFar.1 + added)
                    }
                    return added
                }
            }
            listing.summary.added += added
            addedInAll += added
            lastKey = pageLast ?? lastKey
            progress(listing.summary.found)
            // A store that hands the same token back would list the same page for ever.
            if let next = page.nextToken, next == token {
                throw EnqueueError(.badPath, "listing \(prefix): the store gave the same continuation token twice; it cannot be listed")
            }
            token = page.nextToken
        } while token != nil
        try await database.withConnection { try ListingCheckpoints.forget($0, listing: name) }
        guard listing.summary.found > 0 || listing.resumed != nil || !listing.archived.isEmpty else {
            throw EnqueueError(
                .badPath, "no objects to enqueue under \(prefix) (with the extensions \(request.finder.extensions.sorted().joined(separator: ", ")))")
        }
        return listing
    }

    /// The prefix and a digest of everything that decides which jobs its keys become: a rerun
    /// with another batch, service or filter is another listing, and starts from the first page.
    var listingName: String {
        let shape = [
            request.service, request.action, request.paramsJSON, request.batch ?? "", String(request.priority), String(request.dedupe),
            request.finder.extensions.sorted().joined(separator: ","), request.finder.include.joined(separator: "\u{1}"),
            request.finder.exclude.joined(separator: "\u{1}")
        ].joined(separator: "\u{0}")
        let digest = SHA256.hash(data: Data(shape.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\(String(prefix.description.prefix(1900))) \(digest)"
    }

    /// A bucket that does not exist, refuses the credential or cannot be listed as asked is the
    /// caller's to fix: one line. A store still away after a page's retries stops the run with
    /// where it stopped, which the same enqueue resumes from.
    private func nextPage(after token: String?, startAfter: String?, lastKey: String?) async throws -> ListPage {
        do {
            return try await store.list(bucket: prefix.bucket, prefix: prefix.prefix, after: token, startAfter: startAfter)
        } catch {
            switch error.code {
            case .noSuchBucket, .refused, .invalid, .rejected:
                throw EnqueueError(.badPath, error.message)
            case .unavailable:
                let resume =
                    lastKey.map { "; every key up to \($0) is enqueued: run the same enqueue again to go on after it" }
                    ?? "; nothing was enqueued: run it again"
                throw EnqueueError(.storeUnavailable, "listing \(prefix) stopped: \(error.message)\(resume)")
            default:
                throw error
            }
        }
    }

    private func file(_ entry: ListPage.Entry) -> EnqueuedFile? {
        guard let address = ObjectAddress(bucket: prefix.bucket, key: entry.key) else { return nil }
        let key =
            request.dedupe
            ? ContentKey(service: request.service, action: request.action, paramsJSON: request.paramsJSON).key(etag: entry.etag, size: entry.size)
            : nil
        return EnqueuedFile(path: address.description, uniqueKey: key)
    }

    /// A key the finder takes: its extension, and the globs against the key relative to the
    /// prefix ("folder" keys ending in / are not objects to analyse).
    private func takes(_ entry: ListPage.Entry) -> Bool {
        guard !entry.key.hasSuffix("/"), let dot = entry.key.lastIndex(of: "."),
            request.finder.extensions.contains(String(entry.key[entry.key.index(after: dot)...]).lowercased())
        else { return false }
        let relative = String(entry.key.dropFirst(prefix.prefix.count).drop { $0 == "/" })
        let name = String(entry.key.split(separator: "/").last ?? "")
        return request.finder.wanted(relative: relative, name: name)
    }
}
