import DedicatedThreads
import Imaging
import JobQueue
import MediaFiles
import Postgres
import Telemetry
import Tracing

/// `discern enqueue`'s pipeline: find → key → look → stage → insert, a chunk at a time. Files
/// are found, hashed and enqueued `chunkSize` at a time, each chunk in its own transaction, so
/// memory stays bounded whatever the count, workers start on the first chunk at once, and an
/// interrupted run keeps what it enqueued (run again, it adds only what is missing: the content
/// keys of the rest are already taken).
public struct Enqueuer: Sendable {
    /// What to enqueue, and how.
    public struct Request: Sendable {
        public var paths: [String]
        public var finder: FileFinder
        public var service: String
        public var action: String
        public var paramsJSON: String
        public var batch: String?
        public var priority: Int
        /// Skip content already enqueued or analysed (hashes every file).
        public var dedupe: Bool
        /// Photos that nearly repeat one enqueued before them in this run wait behind the rest.
        public var nearDuplicatesLast: Bool
        public var hashThreads: Int

        public init(
            paths: [String], finder: FileFinder, service: String, action: String, paramsJSON: String, batch: String?, priority: Int,
            dedupe: Bool, nearDuplicatesLast: Bool, hashThreads: Int
        ) {
            (self.paths, self.finder, self.service, self.action, self.paramsJSON) = (paths, finder, service, action, paramsJSON)
            (self.batch, self.priority, self.dedupe, self.nearDuplicatesLast, self.hashThreads) = (
                batch, priority, dedupe, nearDuplicatesLast, hashThreads
            )
        }
    }

    /// What a run did.
    public struct Summary: Sendable {
        public var found = 0
        public var added = 0
        /// Files that could not be read as regular files under the path roots, with why.
        public var unreadable: [String] = []
        public var nearDuplicates = 0
        /// Files and folders left out because their names are not UTF-8, and the first of them.
        public var unnamable = 0
        public var firstUnnamable: String?
        /// Found but not added: already enqueued or analysed.
        public var skipped: Int { found - added - unreadable.count }

        public init() {}

        /// What to do about the names that are not UTF-8.
        public var unnamableAdvice: String {
            "\(unnamable) file(s) or folder(s) left out: their names are not UTF-8, and a path is text in the queue "
                + "(e.g. \(firstUnnamable ?? "?"), odd bytes shown as \u{FFFD}); rename them to UTF-8, "
                + "e.g. convmv -f latin1 -t utf8 -r --notest FOLDER, and enqueue again"
        }
    }

    /// Files per transaction: big enough that COPY dominates, small enough to bound memory.
    public static let chunkSize = 10_000

    let request: Request

    public init(_ request: Request) { self.request = request }

    /// Enqueues everything the paths hold; `progress` is told how many files were found so far.
    /// Throws `EnqueueError` for a path that cannot be searched or when nothing was found.
    public func run(into database: Database, progress: @escaping @Sendable (Int) -> Void) async throws -> Summary {
        let request = self.request
        let walk: FileWalk
        do {
            walk = try request.finder.walk(request.paths)
        } catch let error as EnqueueError {
            throw error
        } catch {
            // A path that cannot be searched (outside the roots, unreadable) is the caller's to fix.
            throw EnqueueError(.badPath, "\(error)")
        }
        let reader = ThreadPool(name: "discern-walk", threads: 1)
        defer { reader.shutdown() }
        var summary = Summary()
        // The perceptual hashes of the photos kept so far in this run, to find near-duplicates.
        var looks = NearDuplicateIndex<String>(radius: PerceptualHash.nearDuplicateBits)
        let contentKey = ContentKey(service: request.service, action: request.action, paramsJSON: request.paramsJSON)
        while let chunk = try await reader.run({ try walk.next(upTo: Self.chunkSize) }) {
            var files = chunk.map { EnqueuedFile(path: $0) }
            if request.dedupe {
                let keys = try await contentKey.keys(
                    chunk, roots: walk.roots, threads: request.hashThreads,
                    maxBytes: ImagePolicy().maxSourceBytes
                ) { [found = summary.found] in progress(found + $0) }
                files = zip(chunk, keys).compactMap { path, key in
                    switch key {
                    case .success(let key): return EnqueuedFile(path: path, uniqueKey: key)
                    case .failure(let problem):
                        summary.unreadable.append(problem.description)
                        return nil
                    }
                }
            }
            if request.nearDuplicatesLast {
                files = try await markNearDuplicates(files, roots: walk.roots, seen: &looks)
                summary.nearDuplicates += files.count { $0.nearDuplicateOf != nil }
            }
            summary.found += chunk.count
            let (staged, send) = Self.traced(files, service: request.service)
            defer { send.end() }
            summary.added += try await database.withConnection { connection in
                try JobQueue.enqueue(
                    connection, files: staged, service: request.service, action: request.action, batch: request.batch,
                    priority: request.priority, paramsJSON: request.paramsJSON)
            }
            progress(summary.found)
        }
        (summary.unnamable, summary.firstUnnamable) = (walk.unnamable, walk.firstUnnamable)
        guard summary.found > 0 else {
            throw EnqueueError(
                .badPath,
                "no files found under \(request.paths.joined(separator: ", "))"
                    + (summary.unnamable > 0 ? "; \(summary.unnamableAdvice)" : ""))
        }
        return summary
    }

    /// Each file's perceptual hash (on `hashThreads` threads of their own), and the earlier photo
    /// of this run it nearly duplicates, if any: the first of a group stays in its turn, the rest
    /// name it. A file that cannot be decoded keeps its turn (the worker will say why it fails).
    private func markNearDuplicates(_ files: [EnqueuedFile], roots: PathRoots, seen: inout NearDuplicateIndex<String>) async throws -> [EnqueuedFile]
    {
        let pool = ThreadPool(name: "discern-look", threads: request.hashThreads)
        defer { pool.shutdown() }
        let hashes = try await withThrowingTaskGroup(of: (Int, UInt64?).self) { group in
            for (index, file) in files.enumerated() {
                group.addTask { (index, try await pool.run { try? PerceptualHash.of(try roots.open(file.path)) }) }
            }
            var hashes = [UInt64?](repeating: nil, count: files.count)
            for try await (index, hash) in group { hashes[index] = hash }
            return hashes
        }
        var marked = files
        for index in marked.indices {
            guard let hash = hashes[index] else { continue }
            marked[index].perceptualHash = Int64(bitPattern: hash)
            if let original = seen.firstNear(hash) {
                marked[index].nearDuplicateOf = original
            } else {
                seen.insert(hash, marked[index].path)
            }
        }
        return marked
    }

    /// While tracing is on (docs/tracing.md), each job starts a trace of its own with its
    /// enqueue span, whose traceparent is stored with it for the worker to continue; the chunk's
    /// insert is one send span, linked to them (the first 128: OpenTelemetry's default limit).
    private static func traced(_ files: [EnqueuedFile], service: String) -> ([EnqueuedFile], Traced) {
        guard Traces.isOn else { return (files, .none) }
        var files = files
        let send = Traces.begin("send \(service)", kind: .client, Messaging.attributes("send", type: "send", service: service))
        send.set("messaging.batch.message_count", files.count)
        for index in files.indices {
            let create = Traces.begin(
                "enqueue \(service)", kind: .producer, parent: .remote(traceparent: nil),
                Messaging.attributes("enqueue", type: "create", service: service))
            files[index].traceparent = create.traceparent
            if index < 128 { send.link(to: files[index].traceparent) }
            create.end()
        }
        return (files, send)
    }
}
