import Backends
import DedicatedThreads
import Foundation
import Imaging
import JobQueue

/// Turns one claimed job into a result, or into a classified failure.
struct JobProcessor: Sendable {
    let backends: [String: any AnalysisBackend]
    /// Dedicated threads for file reads and libvips; never the cooperative pool.
    let blockingPool: ThreadPool

    func process(_ job: Job) async -> Result<JobResult, JobFailure> {
        guard let backend = backends[job.backend] else {
            return .failure(JobFailure(kind: "backend_unavailable", message: "this worker has no '\(job.backend)' backend configured", retryable: true))
        }
        let prepared: PreparedImage
        do {
            let policy = backend.imagePolicy
            let path = job.imagePath
            prepared = try await blockingPool.run {
                try SourceFile.check(path)
                return try ImagePreparer(policy: policy).prepare(file: path)
            }
        } catch let error as ImagingError {
            return .failure(JobFailure(kind: error.kind, message: "\(job.imagePath): \(error.message)", retryable: !error.isPermanent))
        } catch let error as SourceFileError {
            return .failure(JobFailure(kind: error.kind, message: error.message, retryable: false))
        } catch {
            return .failure(JobFailure(kind: "internal", message: "preparing \(job.imagePath) failed: \(error)", retryable: true))
        }

        if Task.isCancelled {
            return .failure(JobFailure(kind: "cancelled", message: "the job was cancelled while it was being prepared", retryable: false))
        }
        let started = DispatchTime.now()
        do {
            let analysis = try await backend.analyze(prepared, request: AnalysisRequest(action: job.action, paramsJSON: job.paramsJSON))
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
            return .success(JobResult(analysis: analysis, preparation: prepared.facts, analyzeMilliseconds: elapsed))
        } catch {
            return .failure(JobFailure(kind: error.kind, message: error.message, retryable: error.retryable,
                                       retryAfterSeconds: error.retryAfterSeconds))
        }
    }
}

extension PreparedImage {
    var facts: JobResult.Preparation {
        JobResult.Preparation(
            originalBytes: original.bytes, originalWidth: original.width, originalHeight: original.height,
            originalFormat: original.format.rawValue, sentBytes: bytes, sentWidth: width, sentHeight: height,
            sentFormat: format.rawValue, jpegQuality: quality, encodeCount: encodeCount,
            passedThrough: passedThrough, milliseconds: milliseconds)
    }
}
