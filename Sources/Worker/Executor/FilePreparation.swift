import Backends
import DedicatedThreads
import Foundation
import Imaging
import JobQueue

/// Turns a job's file into what its service receives, and says what was done: on dedicated
/// threads (file reads and libvips block), reading only under the path roots.
struct FilePreparation: Sendable {
    let pool: ThreadPool
    let roots: PathRoots
    /// A truncated file may still be arriving: it is tried once more after this long.
    let truncatedRetrySeconds: Double

    struct Prepared: Sendable {
        let upload: Upload
        let facts: JobResult.Preparation
    }

    func prepare(_ job: Job, for input: InputHandling) async -> Result<Prepared, JobFailure> {
        let path = job.imagePath, roots = self.roots
        do {
            return .success(try await pool.run { try Self.prepare(path, for: input, roots: roots) })
        } catch let error as ImagingError where error.code == .truncated {
            let again = job.attempt == 1
            return .failure(JobFailure(kind: error.kind, message: "\(path): \(error.message)\(again ? "; trying once more later" : "")",
                                       retryable: again, retryAfterSeconds: truncatedRetrySeconds))
        } catch let error as ImagingError {
            let message = error.code == .pathNotAllowed || error.code == .fileNotFound ? error.message : "\(path): \(error.message)"
            return .failure(JobFailure(kind: error.kind, message: message, retryable: error.isRetryable))
        } catch {
            return .failure(JobFailure(kind: "internal", message: "preparing \(path) failed: \(error)", retryable: true))
        }
    }

    /// Blocking: runs on the pool only.
    private static func prepare(_ path: String, for input: InputHandling, roots: PathRoots) throws -> Prepared {
        switch input {
        case .image(let policy):
            let image = try ImagePreparer(policy: policy).prepare(file: try roots.open(path))
            return Prepared(upload: Upload(image: image), facts: JobResult.Preparation(
                originalBytes: image.original.bytes, originalWidth: image.original.width, originalHeight: image.original.height,
                originalFormat: image.original.format.rawValue, sentBytes: image.bytes, sentWidth: image.width,
                sentHeight: image.height, sentFormat: image.format.rawValue, jpegQuality: image.quality,
                encodeCount: image.encodeCount, passedThrough: image.passedThrough, milliseconds: image.milliseconds))
        case .video(let policy):
            let video = try VideoFile.check(try roots.open(path), policy: policy)
            return Prepared(upload: Upload(video: video), facts: JobResult.Preparation(
                originalBytes: video.data.count, originalWidth: 0, originalHeight: 0, originalFormat: video.container.rawValue,
                sentBytes: video.data.count, sentWidth: 0, sentHeight: 0, sentFormat: video.container.rawValue,
                jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: video.milliseconds))
        case .none:
            return Prepared(upload: .nothing, facts: JobResult.Preparation(
                originalBytes: 0, originalWidth: 0, originalHeight: 0, originalFormat: "none", sentBytes: 0, sentWidth: 0,
                sentHeight: 0, sentFormat: "none", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 0))
        }
    }
}
