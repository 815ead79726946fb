import Backends
import Foundation
import JobQueue
import Logging
import Postgres

/// One job's way through the stages, and how its outcome is recorded.
extension Worker {
    func handle(_ job: Job, onPrepared: () -> Void) async {
        var log = logger
        log[metadataKey: "job"] = "\(job.id)"
        log[metadataKey: "attempt"] = "\(job.attempt)"
        defer { Task { await leases.release(job.id) } }
        let prepareStarted = ContinuousClock.now
        let prepared = await processor.prepare(job)
        WorkerMetrics.stage("prepare", backend: job.backend, ContinuousClock.now - prepareStarted)
        onPrepared()
        let outcome: Result<JobResult, JobFailure>
        switch prepared {
        case .failure(let failure):
            outcome = .failure(failure)
        case .success(let prepared):
            guard !Task.isCancelled else { return }
            // Prepared bytes wait within a memory budget, then for a network slot.
            let weight = prepared.upload.data.count
            await bytesInFlight.acquire(weight)
            await networkSlots.acquire()
            // Abandoned while waiting (lease lost, grace over): hand the slots on, call nobody.
            guard !Task.isCancelled else {
                await networkSlots.release()
                await bytesInFlight.release(weight)
                return
            }
            let analyzeStarted = ContinuousClock.now
            outcome = await processor.analyze(job, prepared)
            await networkSlots.release()
            await bytesInFlight.release(weight)
            WorkerMetrics.stage("analyze", backend: job.backend, ContinuousClock.now - analyzeStarted)
        }
        guard !Task.isCancelled else { return }
        do {
            try await record(outcome, of: job, log: log)
        } catch {
            // The lease will expire and the job will run again: nothing is lost.
            log.error("could not record the outcome; the job will be retried when its lease expires", metadata: ["error": "\(error)"])
        }
    }

    private func record(_ outcome: Result<JobResult, JobFailure>, of job: Job, log: Logger) async throws {
        switch outcome {
        case .success(let result):
            let started = ContinuousClock.now
            let completion = try await batcher.complete(job.id, result)
            WorkerMetrics.stage("complete", backend: job.backend, ContinuousClock.now - started)
            if case .refused(let error) = completion {
                // The one result PostgreSQL will not take: the job ends dead with the reason.
                let message = "PostgreSQL refused this job's result (\(error.sqlState ?? "no SQLSTATE")): \(error.message.prefix(500))"
                return try await record(.failure(JobFailure(kind: "result_unstorable", message: message, retryable: false)), of: job, log: log)
            }
            let stored = if case .stored = completion { true } else { false }
            await finished(job, stored ? .succeeded : .leaseLost)
            WorkerMetrics.bytes(read: result.preparation.originalBytes, sent: result.preparation.sentBytes)
            WorkerMetrics.apiCalls(backend: job.backend, result.analysis.apiCalls)
            log.info("job succeeded", metadata: [
                "path": "\(job.imagePath)", "backend": "\(job.backend)", "outcome": "\(result.analysis.outcome ?? "-")",
                "sent_bytes": "\(result.preparation.sentBytes)", "passed_through": "\(result.preparation.passedThrough)",
                "lease_lost": "\(!stored)",
            ])
        case .failure(let failure):
            let workerID = configuration.workerID, backoff = configuration.backoff
            let state = try await Retrying.database(logger: log, "record failure") {
                try await self.completions.withConnection { connection in
                    try JobQueue.fail(connection, job: job, workerID: workerID, failure: failure, backoff: backoff)
                }
            }
            await finished(job, state == .dead ? .dead : state == .leaseLost ? .leaseLost : .retryScheduled)
            WorkerMetrics.failedAttempt(backend: job.backend, kind: failure.kind)
            log.warning("job failed", metadata: [
                "path": "\(job.imagePath)", "error_kind": "\(failure.kind)", "now": "\(state.rawValue)",
                "error": "\(failure.message)",
            ])
        }
    }

    /// Counted for the summary and the metrics alike.
    private func finished(_ job: Job, _ outcome: Tally.Outcome) async {
        await tally.record(outcome)
        WorkerMetrics.jobFinished(backend: job.backend, outcome: outcome.rawValue)
    }
}

/// Counts outcomes across concurrent jobs.
actor Tally {
    /// Raw values are the `outcome` label of `discern_jobs_total`.
    enum Outcome: String { case succeeded, retryScheduled = "retry_scheduled", dead, leaseLost = "lease_lost" }
    private(set) var summary = WorkerSummary()

    func record(_ outcome: Outcome) {
        switch outcome {
        case .succeeded: summary.succeeded += 1
        case .retryScheduled: summary.retryScheduled += 1
        case .dead: summary.dead += 1
        case .leaseLost: summary.leaseLost += 1
        }
    }
}
