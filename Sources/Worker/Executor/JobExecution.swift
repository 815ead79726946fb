import Backends
import Foundation
import JobQueue

/// One job's way through the stages: prepare its file (CPU, within the prepare stage's room),
/// then, within a memory budget and a network slot, call its service. Returns what became of
/// it; never writes anything (the completer does).
struct JobExecution: Sendable {
    let backends: [String: any AnalysisBackend]
    let preparation: FilePreparation
    let networkSlots: Slots
    let bytesInFlight: Slots
    let inFlight: InFlight

    func run(_ job: Job) async -> JobOutcome {
        guard let backend = backends[job.backend] else {
            await inFlight.prepared(job.id)
            return .failed(job, JobFailure(kind: "backend_unavailable", message: "this worker has no '\(job.backend)' backend configured",
                                           retryable: true))
        }
        let started = ContinuousClock.now
        let prepared = await preparation.prepare(job, for: backend.input(for: job.action))
        await inFlight.prepared(job.id)
        WorkerMetrics.stage("prepare", backend: job.backend, ContinuousClock.now - started)
        switch prepared {
        case .failure(let failure):
            return .failed(job, failure)
        case .success(let prepared):
            return await call(backend, job, prepared)
        }
    }

    /// Prepared bytes wait within the memory budget, then for a network slot.
    private func call(_ backend: any AnalysisBackend, _ job: Job, _ prepared: FilePreparation.Prepared) async -> JobOutcome {
        guard !Task.isCancelled else { return .handBack(job) }
        let weight = prepared.upload.data.count
        await bytesInFlight.acquire(weight)
        await networkSlots.acquire()
        let outcome = await analyze(backend, job, prepared)
        await networkSlots.release()
        await bytesInFlight.release(weight)
        return outcome
    }

    private func analyze(_ backend: any AnalysisBackend, _ job: Job, _ prepared: FilePreparation.Prepared) async -> JobOutcome {
        // Abandoned or stopping while it waited for a slot: call nobody.
        guard !Task.isCancelled else { return .handBack(job) }
        let started = ContinuousClock.now
        do {
            let request = AnalysisRequest(action: job.action, paramsJSON: job.paramsJSON, correlationID: "discern-job-\(job.id)")
            let analysis = try await backend.analyze(prepared.upload, request: request)
            WorkerMetrics.stage("analyze", backend: job.backend, ContinuousClock.now - started)
            return .succeeded(job, analysis, prepared.facts, analyzeMilliseconds: (ContinuousClock.now - started).milliseconds)
        } catch where error.code == .cancelled || Task.isCancelled {
            return .handBack(job)
        } catch {
            return .failed(job, JobFailure(kind: error.kind, message: error.message, retryable: error.isRetryable,
                                           retryAfterSeconds: error.retryAfterSeconds, countsAsAttempt: error.countsAsAttempt))
        }
    }
}
