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
        let upload: Upload
        do {
            let input = backend.input(for: job.action)
            let path = job.imagePath
            upload = try await blockingPool.run { try Self.prepare(path, for: input) }
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
            let request = AnalysisRequest(action: job.action, paramsJSON: job.paramsJSON, correlationID: "discern-job-\(job.id)")
            let analysis = try await backend.analyze(upload, request: request)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
            return .success(JobResult(analysis: analysis, preparation: upload.facts, analyzeMilliseconds: elapsed))
        } catch {
            return .failure(JobFailure(kind: error.kind, message: error.message, retryable: error.retryable,
                                       retryAfterSeconds: error.retryAfterSeconds))
        }
    }
}

extension JobProcessor {
    /// Blocking: file reads and libvips. Runs on the dedicated pool only.
    static func prepare(_ path: String, for input: InputHandling) throws -> Upload {
        switch input {
        case .image(let policy):
            try SourceFile.check(path)
            return Upload(image: try ImagePreparer(policy: policy).prepare(file: path))
        case .video(let policy):
            try SourceFile.check(path)
            return Upload(video: try VideoFile.check(path, policy: policy))
        case .none:
            return Upload(data: Data(), contentType: "application/octet-stream", fileExtension: "", facts: JobResult.Preparation(
                originalBytes: 0, originalWidth: 0, originalHeight: 0, originalFormat: "none", sentBytes: 0, sentWidth: 0,
                sentHeight: 0, sentFormat: "none", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 0))
        }
    }
}
