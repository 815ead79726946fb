import Backends
import DedicatedThreads
import Foundation
import Imaging
import JobQueue

/// The two stages a claimed job goes through: preparing its file (CPU, on dedicated threads)
/// and calling its service (network). Each returns a classified failure instead of throwing.
struct JobProcessor: Sendable {
    let backends: [String: any AnalysisBackend]
    /// Dedicated threads for file reads and libvips; never the cooperative pool.
    let blockingPool: ThreadPool
    /// The only folders job files are read from.
    let roots: PathRoots
    /// A truncated file may still be arriving: it is tried once more after this long.
    let truncatedRetrySeconds: Double

    struct Prepared: Sendable {
        let backend: any AnalysisBackend
        let upload: Upload
    }

    func prepare(_ job: Job) async -> Result<Prepared, JobFailure> {
        guard let backend = backends[job.backend] else {
            return .failure(JobFailure(kind: "backend_unavailable", message: "this worker has no '\(job.backend)' backend configured", retryable: true))
        }
        do {
            let input = backend.input(for: job.action)
            let path = job.imagePath, roots = self.roots
            let upload = try await blockingPool.run { try Self.prepare(path, for: input, roots: roots) }
            return .success(Prepared(backend: backend, upload: upload))
        } catch let error as ImagingError where error.code == .truncated {
            // Retried once: a file still being copied is complete the next time.
            let again = job.attempt == 1
            return .failure(JobFailure(kind: error.kind, message: "\(job.imagePath): \(error.message)\(again ? "; trying once more later" : "")",
                                       retryable: again, retryAfterSeconds: truncatedRetrySeconds))
        } catch let error as ImagingError {
            let message = error.code == .pathNotAllowed || error.code == .fileNotFound ? error.message : "\(job.imagePath): \(error.message)"
            return .failure(JobFailure(kind: error.kind, message: message, retryable: !error.isPermanent))
        } catch {
            return .failure(JobFailure(kind: "internal", message: "preparing \(job.imagePath) failed: \(error)", retryable: true))
        }
    }

    func analyze(_ job: Job, _ prepared: Prepared) async -> Result<JobResult, JobFailure> {
        let started = ContinuousClock.now
        do {
            let request = AnalysisRequest(action: job.action, paramsJSON: job.paramsJSON, correlationID: "discern-job-\(job.id)")
            let analysis = try await prepared.backend.analyze(prepared.upload, request: request)
            return .success(JobResult(analysis: analysis, preparation: prepared.upload.facts,
                                      analyzeMilliseconds: (ContinuousClock.now - started).milliseconds))
        } catch {
            return .failure(JobFailure(kind: error.kind, message: error.message, retryable: error.retryable,
                                       retryAfterSeconds: error.retryAfterSeconds, countsAsAttempt: error.countsAsAttempt))
        }
    }

    /// Blocking: file reads and libvips. Runs on the dedicated pool only.
    static func prepare(_ path: String, for input: InputHandling, roots: PathRoots) throws -> Upload {
        switch input {
        case .image(let policy):
            return Upload(image: try ImagePreparer(policy: policy).prepare(file: try roots.open(path)))
        case .video(let policy):
            return Upload(video: try VideoFile.check(try roots.open(path), policy: policy))
        case .none:
            return Upload(data: Data(), contentType: "application/octet-stream", fileExtension: "", facts: JobResult.Preparation(
                originalBytes: 0, originalWidth: 0, originalHeight: 0, originalFormat: "none", sentBytes: 0, sentWidth: 0,
                sentHeight: 0, sentFormat: "none", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 0))
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
