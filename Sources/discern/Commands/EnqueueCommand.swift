import ArgumentParser
import Backends
import DedicatedThreads
import Enqueueing
import Foundation
import Imaging
import JobQueue
import MediaFiles
import Postgres
import Telemetry
import Tracing

struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Add a job for each image file given, searching folders recursively.",
        discussion: """
            By default each file's content is hashed (SHA-256): a file whose content already has a job waiting, \
            running or succeeded for the same backend and action, or a result, is skipped, so enqueueing the same \
            folder twice adds nothing. Files are found, hashed and enqueued 10,000 at a time (COPY, one transaction \
            each): memory stays bounded, workers start on the first ones, and an interrupted run can be run again \
            to add what is missing.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "Files or folders. Folders are searched recursively for .jpg .jpeg .png .webp .tif .tiff .heic .heif .gif files (for a service that takes videos: .mp4 .mov .webm .m4v).")
    var paths: [String]

    @Option(help: "The analysis service.")
    var backend: BackendChoice = .discerner

    @Option(help: ArgumentHelp("The backend's action (\(Services.all.filter { $0.actions.count > 1 || $0.actions != ["analyze"] }.map { "\($0.name): \($0.actions.joined(separator: ", "))" }.joined(separator: "; "))). Default: the backend's main action."))
    var action: String = "analyze"

    @Option(help: #"Per-job parameters as a JSON object, e.g. '{"personGroupId": "staff"}'."#)
    var params: String = "{}"

    @Option(help: "Group the jobs under this batch name (created if new), e.g. nightly-2026-11-22.")
    var batch: String?

    @Option(help: "Lower numbers run first.")
    var priority: Int = 0

    @Option(help: "Only files whose relative path or name matches this glob (repeatable), e.g. '*/cam-*/*.jpg'.")
    var include: [String] = []

    @Option(help: "Leave out files whose relative path or name matches this glob (repeatable), e.g. '*/thumbs/*'.")
    var exclude: [String] = []

    @Flag(inversion: .prefixedNo, help: "Skip files whose content was already enqueued or analysed (hashes every file).")
    var dedupe = true

    @Option(help: "last: a photo that nearly duplicates one enqueued before it in this run (resized, recompressed, slightly cropped; a perceptual hash, compared within \(PerceptualHash.nearDuplicateBits) of 64 bits) waits behind every other job, so a quota goes to new photos first; off: every photo in its turn.")
    var nearDuplicates: NearDuplicates = .off

    enum NearDuplicates: String, ExpressibleByArgument, CaseIterable {
        case off, last
    }

    @Option(help: "Threads hashing files.")
    var hashThreads: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)

    @Option(name: .customLong("path-root"),
            help: "Only files under this folder once symlinks are resolved (repeatable). Default: $DISCERN_PATH_ROOTS, else the folders named.")
    var pathRoots: [String] = []

    func validate() throws {
        guard (1...256).contains(hashThreads) else { throw ValidationError("--hash-threads must be from 1 to 256") }
        guard (-32768...32767).contains(priority) else { throw ValidationError("--priority must be from -32768 to 32767") }
        if let name = batch, !(1...200).contains(name.count) { throw ValidationError("--batch must be 1 to 200 characters") }
        guard (1...50).contains(action.count) else { throw ValidationError("--action must be 1 to 50 characters") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(params.utf8)), object is [String: Any] else {
            throw ValidationError(#"--params must be a JSON object, e.g. '{"templateId": "t-1"}'"#)
        }
    }

    func run() async throws {
        let roots = try Setting.pathRoots(pathRoots)
        let finder = FileFinder(extensions: backend.service.imagePolicy == nil ? FileFinder.videoExtensions : FileFinder.imageExtensions,
                                include: include, exclude: exclude, roots: roots)
        let walk: FileWalk
        do { walk = try finder.walk(self.paths) } catch { throw ValidationError("\(error)") }
        // Streamed: files are found, hashed and enqueued a chunk at a time, each chunk in its own
        // transaction, so memory stays bounded whatever the count, workers start on the first
        // chunk at once, and an interrupted run keeps what it enqueued (running it again adds
        // only what is missing: the content keys of the rest are already taken).
        let reader = ThreadPool(name: "discern-walk", threads: 1)
        defer { reader.shutdown() }
        let database = Database(conninfo: self.database.conninfo, name: "discern-enqueue")
        let progress = TerminalProgress(label: "enqueueing", total: 0)
        let backend = self.backend.rawValue, action = self.action, batch = self.batch, priority = self.priority, params = self.params
        var found = 0, added = 0
        var unreadable: [String] = []
        // The perceptual hashes of the photos kept so far in this run, to find near-duplicates.
        var looks = NearDuplicateIndex<String>(radius: PerceptualHash.nearDuplicateBits)
        var nearDuplicateCount = 0
        let contentKey = ContentKey(backend: backend, action: action, paramsJSON: params)
        while let chunk = try await reader.run({ try walk.next(upTo: Self.chunkSize) }) {
            var files = chunk.map { EnqueuedFile(path: $0) }
            if dedupe {
                let keys = try await contentKey.keys(chunk, roots: walk.roots, threads: hashThreads) { [found] in progress.update(found + $0) }
                files = zip(chunk, keys).compactMap { path, key in
                    switch key {
                    case .success(let key): return EnqueuedFile(path: path, uniqueKey: key)
                    case .failure(let problem):
                        unreadable.append(problem.description)
                        return nil
                    }
                }
            }
            if nearDuplicates == .last {
                files = try await markNearDuplicates(files, roots: walk.roots, seen: &looks)
                nearDuplicateCount += files.count { $0.nearDuplicateOf != nil }
            }
            found += chunk.count
            let (staged, send) = Self.traced(files, backend: backend)
            added += try await database.withConnection { connection in
                try JobQueue.enqueue(connection, files: staged, backend: backend, action: action, batch: batch, priority: priority, paramsJSON: params)
            }
            send.end()
            progress.update(found)
        }
        progress.finish()
        guard found > 0 else {
            throw ValidationError("no files found under \(self.paths.joined(separator: ", "))")
        }
        if let first = unreadable.first {
            StandardError.writeLine("skipped \(unreadable.count) file(s) that could not be read as regular files under the path roots, e.g. \(TerminalText.safe(first))")
        }
        let skipped = found - added - unreadable.count
        print("enqueued \(added) job(s) for \(backend)\(batch.map { " in batch \(TerminalText.safe($0))" } ?? "")"
              + (skipped > 0 ? "; skipped \(skipped) already enqueued or analysed" : "")
              + (nearDuplicates == .last ? "; \(nearDuplicateCount) near-duplicate(s) wait behind the rest" : ""))
    }

    /// Each file's perceptual hash (on `hashThreads` threads of their own), and the earlier photo
    /// of this run it nearly duplicates, if any: the first of a group stays in its turn, the rest
    /// name it. A file that cannot be decoded keeps its turn (the worker will say why it fails).
    private func markNearDuplicates(_ files: [EnqueuedFile], roots: PathRoots, seen: inout NearDuplicateIndex<String>) async throws -> [EnqueuedFile] {
        let pool = ThreadPool(name: "discern-look", threads: hashThreads)
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
    private static func traced(_ files: [EnqueuedFile], backend: String) -> ([EnqueuedFile], Traced) {
        guard Traces.isOn else { return (files, .none) }
        var files = files
        let send = Traces.begin("send \(backend)", kind: .client, Messaging.attributes("send", type: "send", service: backend))
        send.set("messaging.batch.message_count", files.count)
        for index in files.indices {
            let create = Traces.begin("enqueue \(backend)", kind: .producer, parent: .remote(traceparent: nil),
                                      Messaging.attributes("enqueue", type: "create", service: backend))
            files[index].traceparent = create.traceparent
            if index < 128 { send.link(to: files[index].traceparent) }
            create.end()
        }
        return (files, send)
    }

    /// Files per transaction: big enough that COPY dominates, small enough to bound memory.
    static let chunkSize = 10_000
}
