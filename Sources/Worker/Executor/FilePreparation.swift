import ServiceClients
import DedicatedThreads
import ErrorCodes
import Foundation
import Imaging
import JobQueue
import MediaFiles
import ObjectStorage

/// Turns a job's file into what its service receives, and says what was done: on dedicated
/// threads (file reads and libvips block), reading only under the path roots. In two steps, so
/// the worker can reserve the memory a file will take before any of it is decoded: `plan`
/// opens the file and reads its header, `prepare` does the work. An `s3://` job's object is
/// first downloaded into a file of the worker's own (`ObjectReader`), then read the same way.
struct FilePreparation: Sendable {
    let pool: ThreadPool
    let roots: PathRoots
    /// Nil: this worker reads no object (no AWS credential, or no s3:// path root).
    var objects: ObjectReader? = nil
    /// A truncated file may still be arriving: it is tried once more after this long.
    let truncatedRetrySeconds: Double

    struct Prepared: Sendable {
        let upload: Upload
        let facts: JobResult.Preparation
    }

    /// The opened file and an upper bound of the memory preparing it takes (by its pixels, not
    /// its size: `ImagePreparer.memoryEstimate`).
    struct Plan: Sendable {
        let file: OpenedFile?
        let memory: Int
    }

    func plan(_ job: Job, for input: InputHandling) async -> Result<Plan, JobFailure> {
        // A job that sends no file (OOTO's delete, the benches' no-op) reads nothing: no thread hop.
        if case .none = input { return .success(Plan(file: nil, memory: 0)) }
        let path = job.imagePath, roots = self.roots
        var downloaded: OpenedFile?
        if ObjectAddress.isObjectPath(path) {
            switch await download(job, for: input) {
            case .success(let file): downloaded = file
            case .failure(let failure): return .failure(failure)
            }
        }
        return await run(job) { [downloaded] in
            switch input {
            case .image(let policy):
                let file = try downloaded ?? roots.open(path)
                return Plan(file: file, memory: try ImagePreparer(policy: policy).memoryEstimate(file: file))
            case .video(let policy):
                // A video over the limit is refused before it is read: reserving all of it (a
                // sparse terabyte named .mp4) would first wait for every other job to finish.
                let file = try downloaded ?? roots.open(path)
                return Plan(file: file, memory: min(file.size, policy.maxBytes))
            case .none:
                return Plan(file: nil, memory: 0)
            }
        }
    }

    func prepare(_ job: Job, _ plan: Plan, for input: InputHandling) async -> Result<Prepared, JobFailure> {
        if case .none = input { return .success(Self.nothing) }
        return await run(job) { try Self.prepare(plan.file, for: input) }
    }

    private static let nothing = Prepared(
        upload: .nothing,
        facts: JobResult.Preparation(
            originalBytes: 0, originalWidth: 0, originalHeight: 0, originalFormat: "none", sentBytes: 0, sentWidth: 0,
            sentHeight: 0, sentFormat: "none", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 0))

    /// The job's object, downloaded into an unnamed file of the worker's own.
    private func download(_ job: Job, for input: InputHandling) async -> Result<OpenedFile, JobFailure> {
        guard let objects else {
            return .failure(
                JobFailure(
                    .pathNotAllowed,
                    message: "\(job.imagePath) is in object storage, and this worker reads no "
                        + "bucket: give it an s3:// entry in DISCERN_PATH_ROOTS (and bucket credentials, docs/configuration.md)"))
        }
        let limit: Int
        switch input {
        case .image(let policy): limit = policy.maxSourceBytes
        case .video(let policy): limit = policy.maxBytes
        case .none: limit = 0
        }
        do {
            let fetched = try await objects.fetch(job.imagePath, maxBytes: limit)
            return .success(try OpenedFile.adopting(fetched.descriptor, name: job.imagePath))
        } catch let error as ObjectStorageError {
            return .failure(Self.failure(error))
        } catch {
            // The download's own trouble (no room for its temporary file): the system's, as a file
            // that could not be read is.
            return .failure(
                Self.failure(ImagingError(.unreadable, "\(error)"), path: job.imagePath, truncatedRetrySeconds: truncatedRetrySeconds))
        }
    }

    /// What an object store's refusal makes of the attempt: a missing, empty or archived object,
    /// one over the limit, refused by its own S3 code, or outside the allowed buckets is the
    /// photo's (dead); a missing bucket is the
    /// system's, dead with a kind that says so; a refused credential or the store's weather is
    /// the system's too, which the breaker holds (`JobExecution`).
    static func failure(_ error: ObjectStorageError) -> JobFailure {
        switch error.code {
        case .noSuchKey: return JobFailure(.fileNotFound, message: error.message)
        case .noSuchBucket: return JobFailure(.bucketNotFound, message: error.message)
        case .archived: return JobFailure(.objectArchived, message: error.message)
        case .rejected: return JobFailure(.objectRejected, message: error.message)
        case .notAllowed: return JobFailure(.pathNotAllowed, message: error.message)
        case .empty: return JobFailure(.imageEmpty, message: error.message)
        case .tooLarge: return JobFailure(.imageSourceTooLarge, message: error.message)
        case .refused: return JobFailure(.objectStoreRefused, message: error.message)
        case .cancelled: return cancelled(error.message)
        default:
            return JobFailure(.objectStoreUnavailable, message: error.message, retryAfterSeconds: error.retryAfterSeconds)
        }
    }

    /// Runs `work` on the pool; what went wrong becomes the job's failure.
    private func run<T: Sendable>(_ job: Job, _ work: @escaping @Sendable () throws -> T) async -> Result<T, JobFailure> {
        let path = job.imagePath
        do {
            do {
                return .success(try await pool.runUnlessCancelled(work))
            } catch let error as FileAccessError {
                // Opening the file (MediaFiles) fails with the codes preparing it has.
                throw ImagingError(error)
            }
        } catch let error as ImagingError {
            return .failure(
                Self.failure(error, path: path, truncatedRetrySeconds: truncatedRetrySeconds))
        } catch is CancellationError {
            return .failure(Self.cancelled(path))
        } catch {
            return .failure(JobFailure(.internalError, message: "preparing \(path) failed: \(error)"))
        }
    }

    /// The worker stopped before the photo was read or prepared: the job goes back to the queue,
    /// its attempt not counted (`JobExecution` hands it back): a shutdown never waits for the
    /// photos queued for the pool to be prepared only to be thrown away.
    static func cancelled(_ path: String) -> JobFailure {
        JobFailure(.cancelled, message: "\(path): the worker stopped before preparing it")
    }

    /// A preparation's failure, as its kind (`ImagingError.kind`); what it costs the job is
    /// `FailureDecision`'s. A kind tried once more (a truncated file may still be arriving) waits
    /// `truncatedRetrySeconds` first.
    static func failure(_ error: ImagingError, path: String, truncatedRetrySeconds: Double) -> JobFailure {
        let kind = error.kind
        let message = error.code == .pathNotAllowed || error.code == .fileNotFound ? error.message : "\(path): \(error.message)"
        return JobFailure(kind, message: message, retryAfterSeconds: kind.retry == .once ? truncatedRetrySeconds : nil)
    }

    /// Blocking: runs on the pool only.
    private static func prepare(_ file: OpenedFile?, for input: InputHandling) throws -> Prepared {
        switch (input, file) {
        case (.image(let policy), let file?):
            let image = try ImagePreparer(policy: policy).prepare(file: file)
            return Prepared(
                upload: Upload(image: image),
                facts: JobResult.Preparation(
                    originalBytes: image.original.bytes, originalWidth: image.original.width, originalHeight: image.original.height,
                    originalFormat: image.original.format.rawValue, sentBytes: image.bytes, sentWidth: image.width,
                    sentHeight: image.height, sentFormat: image.format.rawValue, jpegQuality: image.quality,
                    encodeCount: image.encodeCount, passedThrough: image.passedThrough, milliseconds: image.milliseconds,
                    byteBudget: policy.maxBytes, policyJSON: PolicyRecord.json(policy)))
        case (.video(let policy), let file?):
            let video = try VideoFile.check(file, policy: policy)
            return Prepared(
                upload: Upload(video: video),
                facts: JobResult.Preparation(
                    originalBytes: video.data.count, originalWidth: 0, originalHeight: 0, originalFormat: video.container.rawValue,
                    sentBytes: video.data.count, sentWidth: 0, sentHeight: 0, sentFormat: video.container.rawValue,
                    jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: video.milliseconds,
                    byteBudget: policy.maxBytes, policyJSON: PolicyRecord.json(policy)))
        default:
            return nothing
        }
    }
}
