import JobQueue
import ObjectStorage
import Postgres

/// `discern enqueue s3://bucket/prefix/`: lists the prefix a page (1,000 keys) at a time, keeps
/// the keys the finder's extension filter and globs take (matched against the key relative to
/// the prefix, as a folder's files are), keys each by its ETag and size (`ContentKey`), and
/// enqueues each page in a transaction of its own, so workers start on the first page at once,
/// memory stays bounded whatever the count, and a rerun adds none of what it added.
public struct ObjectEnqueuer: Sendable {
    let store: ObjectStore
    let prefix: ObjectPrefix
    let request: Enqueuer.Request

    public init(store: ObjectStore, prefix: ObjectPrefix, request: Enqueuer.Request) {
        (self.store, self.prefix, self.request) = (store, prefix, request)
    }

    public func run(into database: Database, progress: @escaping @Sendable (Int) -> Void) async throws -> Enqueuer.Summary {
        var summary = Enqueuer.Summary()
        var token: String?
        repeat {
            let page = try await nextPage(after: token)
            let taken = page.entries.filter(takes)
            let files = taken.compactMap(file)
            summary.found += taken.count
            summary.unreadable += taken.filter { ObjectAddress(bucket: prefix.bucket, key: $0.key) == nil }
                .map { "s3://\(prefix.bucket)/\($0.key): not a key a job can name (over 1,024 bytes)" }
            if !files.isEmpty {
                let request = self.request
                summary.added += try await database.withConnection { connection in
                    try JobQueue.enqueue(
                        connection, files: files, backend: request.backend, action: request.action, batch: request.batch,
                        priority: request.priority, paramsJSON: request.paramsJSON)
                }
            }
            progress(summary.found)
            token = page.nextToken
        } while token != nil
        guard summary.found > 0 else {
            throw EnqueueError(
                .badPath, "no objects to enqueue under \(prefix) (with the extensions \(request.finder.extensions.sorted().joined(separator: ", ")))")
        }
        return summary
    }

    /// A bucket that does not exist or refuses the credential is the caller's to fix: one line.
    private func nextPage(after token: String?) async throws -> ListPage {
        do {
            return try await store.list(bucket: prefix.bucket, prefix: prefix.prefix, after: token)
        } catch {
            guard error.code == .noSuchBucket || error.code == .refused || error.code == .invalid else { throw error }
            throw EnqueueError(.badPath, error.message)
        }
    }

    private func file(_ entry: ListPage.Entry) -> EnqueuedFile? {
        guard let address = ObjectAddress(bucket: prefix.bucket, key: entry.key) else { return nil }
        let key =
            request.dedupe
            ? ContentKey(backend: request.backend, action: request.action, paramsJSON: request.paramsJSON).key(etag: entry.etag, size: entry.size)
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
