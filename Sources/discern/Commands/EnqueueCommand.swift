import ArgumentParser
import ServiceClients
import Enqueueing
import Foundation
import Imaging
import JobQueue
import MediaFiles
import ObjectStorage
import Postgres

struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Add a job for each image file given, searching folders recursively, or for each object under an s3:// prefix.",
        discussion: """
            By default each file's content is hashed (SHA-256): a file whose content already has a job waiting, \
            running or succeeded for the same service and action, or a result, is skipped, so enqueueing the same \
            folder twice adds nothing. Files are found, hashed and enqueued 10,000 at a time (COPY, one transaction \
            each): memory stays bounded, workers start on the first ones, and an interrupted run can be run again \
            to add what is missing.

            s3://bucket/prefix/ lists the prefix in a bucket (the s3:// entries of the path roots say which; \
            credentials as the AWS tools find them: docs/configuration.md, "Bucket credentials") and keys each \
            object by its ETag and size, a page of 1,000 keys at a time. A run cut short is resumed by the same \
            command, after the last page it enqueued (--from-start lists from the first key again). Objects in an \
            archive storage class (Glacier Flexible Retrieval, Deep Archive) that are not restored are left out \
            and counted.
            """)

    @OptionGroup var database: DatabaseOptions

    /// What a bucket's listing has to say (credentials fetched, a region followed, a clock off).
    @OptionGroup var logging: LogOptions

    @Argument(
        help:
            "Files or folders, or s3://bucket/prefix/ (not both in one run). Folders and prefixes are searched for .jpg .jpeg .png .webp .tif .tiff .heic .heif .gif files (for a service that takes videos: .mp4 .mov .webm .m4v)."
    )
    var paths: [String]

    @Option(name: [.customLong("service"), .customLong("backend")], help: ArgumentHelp("The analysis service.", valueName: "service"))
    var service: ServiceChoice = .discerner

    @Option(
        help: ArgumentHelp(
            "The service's action (\(Services.all.filter { $0.actions.count > 1 || $0.actions != ["analyze"] }.map { "\($0.name): \($0.actions.joined(separator: ", "))" }.joined(separator: "; "))). Default: the service's main action."
        ))
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

    @Option(
        help:
            "last: a photo that nearly duplicates one enqueued before it in this run (resized, recompressed, slightly cropped; a perceptual hash, compared within \(PerceptualHash.nearDuplicateBits) of 64 bits) waits behind every other job, so a quota goes to new photos first; off: every photo in its turn."
    )
    var nearDuplicates: NearDuplicates = .off

    enum NearDuplicates: String, ExpressibleByArgument, CaseIterable {
        case off, last
    }

    @Flag(help: "For s3:// prefixes: list from the first key, even where an interrupted run of the same enqueue stopped part way.")
    var fromStart = false

    @Option(help: "Threads hashing files.")
    var hashThreads: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)

    @Option(
        name: .customLong("path-root"),
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
        let objects = paths.filter(ObjectAddress.isObjectPath)
        let finder = FileFinder(
            extensions: service.service.imagePolicy == nil ? FileFinder.videoExtensions : FileFinder.imageExtensions,
            include: include, exclude: exclude, roots: objects.isEmpty ? try folderRoots() : nil)
        let request = Enqueuer.Request(
            paths: paths, finder: finder, service: service.rawValue, action: action, paramsJSON: params,
            batch: batch, priority: priority, dedupe: dedupe, nearDuplicatesLast: nearDuplicates == .last,
            hashThreads: hashThreads)
        let progress = TerminalProgress(label: "enqueueing", total: 0)
        let into = Database(conninfo: database.conninfo, name: "discern-enqueue")
        var summary = Enqueuer.Summary()
        do {
            if objects.isEmpty {
                summary = try await Enqueuer(request).run(into: into) { progress.update($0) }
            } else {
                let prefixes = try objectPrefixes(objects), store = try Setting.objectStore(logger: logging.makeLogger("discern.enqueue"))
                for prefix in prefixes {
                    let done = summary.found
                    let listing = try await ObjectEnqueuer(store: store, prefix: prefix, request: request, fromStart: fromStart).run(into: into) {
                        progress.update(done + $0)
                    }
                    (summary.found, summary.added) = (summary.found + listing.summary.found, summary.added + listing.summary.added)
                    summary.unreadable += listing.summary.unreadable
                    Self.describe(listing, of: prefix)
                }
            }
        } catch let error as EnqueueError where !objects.isEmpty {
            // A bucket that does not exist or refuses the credential: one line, exit 64.
            throw error
        } catch let error as EnqueueError {
            throw ValidationError("\(error)")
        }
        progress.finish()
        if let first = summary.unreadable.first {
            StandardError.writeLine(
                "skipped \(summary.unreadable.count) file(s) that could not be read as regular files under the path roots, e.g. \(TerminalText.safe(first))"
            )
        }
        if summary.unnamable > 0 { StandardError.writeLine(TerminalText.safe(summary.unnamableAdvice)) }
        print(
            "enqueued \(summary.added) job(s) for \(service.rawValue)\(batch.map { " in batch \(TerminalText.safe($0))" } ?? "")"
                + (summary.skipped > 0 ? "; skipped \(summary.skipped) already enqueued or analysed" : "")
                + (nearDuplicates == .last ? "; \(summary.nearDuplicates) near-duplicate(s) wait behind the rest" : ""))
    }
}

extension EnqueueCommand {
    /// What a prefix's listing did beside enqueueing: where it went on from, what it left in
    /// the archive. On standard error, as the other notes of a run are.
    static func describe(_ listing: ObjectEnqueuer.Listing, of prefix: ObjectPrefix) {
        if let resumed = listing.resumed {
            StandardError.writeLine(
                "\(TerminalText.safe(prefix.description)): went on after \(TerminalText.safe(resumed.afterKey)), where a run \(resumed.ageSeconds) s ago "
                    + "stopped (it had listed \(resumed.listed) object(s) and added \(resumed.added) job(s)); --from-start lists from the first key")
        }
        if let first = listing.firstArchived {
            let classes = listing.archived.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            StandardError.writeLine(
                "left out \(listing.archived.values.reduce(0, +)) object(s) in archive storage (\(TerminalText.safe(classes))), e.g. \(TerminalText.safe(first)): "
                    + "restore them (S3 RestoreObject), then enqueue again")
        }
    }

    /// The folders files may be enqueued from: the path roots' folders; without any path root,
    /// the folders named are their own roots. Roots that name only buckets allow no folder.
    func folderRoots() throws -> PathRoots? {
        let roots = try Setting.pathRoots(pathRoots)
        guard roots != nil || !Setting.rootsGiven(pathRoots) else {
            throw SettingError(
                "the path roots name no folder, so no worker would read \(paths.first.map { TerminalText.safe($0) } ?? "these files"): add its folder to DISCERN_PATH_ROOTS (or --path-root)"
            )
        }
        return roots
    }

    /// The s3:// prefixes to list, each inside the buckets the path roots allow (without any
    /// path root, the prefixes named are their own roots, as folders are; roots that name only
    /// folders allow no bucket).
    func objectPrefixes(_ objects: [String]) throws -> [ObjectPrefix] {
        guard objects.count == paths.count else {
            throw ValidationError("give folders or s3:// prefixes, not both in one enqueue")
        }
        guard nearDuplicates == .off else {
            throw ValidationError(
                "--near-duplicates last reads each photo's pixels: not for s3:// prefixes, whose photos are not downloaded to enqueue them")
        }
        let allowed = try Setting.objectRoots(pathRoots)
        return try objects.map { text in
            guard let prefix = ObjectPrefix(text) else { throw ValidationError("\(text) is not s3://bucket/prefix with a valid bucket name") }
            guard !allowed.isEmpty || !Setting.rootsGiven(pathRoots) else {
                throw SettingError(
                    "the path roots name no bucket, so no worker would read \(TerminalText.safe(text)): add s3://\(prefix.bucket)/ (or a prefix of it) to DISCERN_PATH_ROOTS (or --path-root)"
                )
            }
            guard allowed.isEmpty || allowed.contains(where: { $0.bucket == prefix.bucket && prefix.prefix.hasPrefix($0.prefix) }) else {
                throw SettingError("\(TerminalText.safe(text)) is not under the path roots (\(allowed.map(\.description).joined(separator: ", ")))")
            }
            return prefix
        }
    }

}
