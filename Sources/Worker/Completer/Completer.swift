import ErrorCodes
import AnalysisModel
import JobQueue
import Logging
import ServiceLifecycle
import Telemetry

/// The only code that writes what became of jobs: results (with their jobs marked succeeded,
/// in batches: whatever finished while the previous batch was written goes in the next, and a
/// small batch waits a millisecond for more),
/// failed attempts, hand-backs. When the executor is done, whatever is still held is handed
/// back, so a job is never left running on a stopped worker.
struct Completer: Service {
    let inbox: OneWayQueue<JobOutcome>
    let writer: OutcomeWriter
    let inFlight: InFlight
    let tally: OutcomeCounts
    let traces: JobTraces
    let maxBatch: Int
    /// The discern writing the results, which each records (`results.discern_version`).
    let release: String
    let logger: Logger

    /// How long a small batch waits for more before it is written. A statement's fixed cost
    /// (its plan's start-up, its triggers) is shared by more jobs, for a lone job written 1 ms
    /// later (docs/decisions/0008-completer-batches.md).
    static let linger: Duration = .milliseconds(1)

    func run() async {
        while let first = await inbox.next() {
            var batch = [first] + (await inbox.takeWaiting(upTo: maxBatch - 1))
            if batch.count < maxBatch / 2 {
                try? await Task.sleep(for: Self.linger)
                batch += await inbox.takeWaiting(upTo: maxBatch - batch.count)
            }
            await record(batch)
        }
        let leftovers = await inFlight.takeAll()
        if !leftovers.isEmpty {
            let handedBack = await writer.handBack(leftovers.map(\.id))
            logger.notice("handed jobs still in flight back to the queue", metadata: ["jobs": "\(handedBack)"])
            await tally.count(leftovers.count, as: .handedBack)
            for job in leftovers { traces.take(job.id)?.end(OutcomeCounts.Outcome.handedBack.rawValue) }
        }
        try? await gracefulShutdown()
    }

    /// A job whose outcome may put it back in the queue (a retry, a hand-back) leaves this
    /// worker's hands before that is written, never after: once written, this worker's own
    /// producer may claim it again at once, and a job still held here would be taken for a run
    /// under way, then run by nobody (docs/decisions/0004-jobs-a-worker-lets-go.md). Succeeded
    /// ones never come back.
    private func record(_ batch: [JobOutcome]) async {
        var results: [(job: Job, result: JobResult)] = [], handBacks: [Job] = []
        await inFlight.writing(batch.map(\.job.id))
        traces.completing(batch.lazy.map(\.job))
        for outcome in batch {
            switch outcome {
            case .succeeded(let job, let analysis, let facts, let milliseconds):
                results.append((job, JobResult(analysis: analysis, preparation: facts, analyzeMilliseconds: milliseconds, release: release)))
            case .failed(let job, let failure):
                await letGo(job, failure: failure) { await writer.fail(job, failure) }
            case .handBack(let job):
                handBacks.append(job)
            case .abandoned(let job):
                logger.notice("job abandoned: its lease was lost (cancelled or rescued); its work was discarded", metadata: ["job": "\(job.id)"])
                await letGo(job) { .leaseLost }
            case .handBackLater(let job, let failure, let after):
                await letGo(job) { await writer.handBackLater(job, failure, afterSeconds: after) ? .handedBackLater : .leaseLost }
            }
        }
        if !handBacks.isEmpty {
            let ids = handBacks.map(\.id), spans = ids.map(traces.take)
            await inFlight.letGo(ids)
            _ = await writer.handBack(ids)
            await inFlight.settled(ids)
            for (job, spans) in zip(handBacks, spans) {
                spans?.end(OutcomeCounts.Outcome.handedBack.rawValue)
                await settle(job, .handedBack)
            }
        }
        guard !results.isEmpty else { return }
        let started = ContinuousClock.now
        let written = await writer.complete(results)
        WorkerMetrics.stage("complete", service: "all", ContinuousClock.now - started)
        var succeeded: [(job: Job, result: JobResult)] = []
        for (job, result) in results {
            switch written[job.id] ?? .unknown {
            case .stored:
                succeeded.append((job, result))
            case .leaseLost:
                await letGo(job) { .leaseLost }
            case .refused(let failure):
                await letGo(job, failure: failure) { await writer.fail(job, failure) }
            case .unknown:
                // Not written (the database stayed away): the lease expires and the job runs again.
                await letGo(job) { .notRecorded }
            }
        }
        await finishSucceeded(succeeded)
    }

    /// Jobs whose results were stored, settled together: one hop to each actor and one count
    /// per service for the whole batch, not a hop, a metric lookup and log metadata per job.
    private func finishSucceeded(_ succeeded: [(job: Job, result: JobResult)]) async {
        guard !succeeded.isEmpty else { return }
        await inFlight.finished(succeeded.map(\.job.id))
        await tally.count(succeeded.count, as: .succeeded)
        for (service, jobs) in Dictionary(grouping: succeeded, by: \.job.service) {
            WorkerMetrics.jobsFinished(jobs.count, service: service, outcome: OutcomeCounts.Outcome.succeeded.rawValue)
            WorkerMetrics.bytes(
                service: service, read: jobs.reduce(0) { $0 + $1.result.preparation.originalBytes },
                sent: jobs.reduce(0) { $0 + $1.result.preparation.sentBytes })
            WorkerMetrics.apiCalls(service: service, jobs.reduce(0) { $0 + $1.result.analysis.apiCalls })
        }
        for (job, result) in succeeded {
            traces.take(job.id)?.end(OutcomeCounts.Outcome.succeeded.rawValue)
            logger.info(
                "job succeeded",
                metadata: Self.metadata(job).merging([
                    "outcome": "\(result.analysis.outcome ?? "-")", "sent_bytes": "\(result.preparation.sentBytes)",
                    "passed_through": "\(result.preparation.passedThrough)"
                ]) { $1 })
        }
    }

    private static func metadata(_ job: Job) -> Logger.Metadata {
        ["job": "\(job.id)", "attempt": "\(job.attempt)", "path": "\(job.imagePath)", "service": "\(job.service)"]
    }

    /// Lets go of `job` here, then writes its outcome (`write`) and settles it (`record`: in that
    /// order, so a claim after the write finds the job free). Its spans are taken first and
    /// ended with what was written.
    private func letGo(_ job: Job, failure: JobFailure? = nil, _ write: () async -> OutcomeCounts.Outcome) async {
        let spans = traces.take(job.id)
        await inFlight.letGo([job.id])
        let outcome = await write()
        await inFlight.settled([job.id])
        spans?.end(outcome.rawValue, failure: failure)
        await settle(job, outcome, failure: failure)
    }

    /// Counts and logs a job that did not succeed (succeeded ones: `finishSucceeded`), once it
    /// has left this worker's hands (`record`).
    private func settle(_ job: Job, _ outcome: OutcomeCounts.Outcome, failure: JobFailure? = nil) async {
        await tally.count(1, as: outcome)
        WorkerMetrics.jobsFinished(1, service: job.service, outcome: outcome.rawValue)
        if let failure {
            WorkerMetrics.failedAttempt(service: job.service, kind: failure.kind.code)
            logger.warning(
                "job failed",
                metadata: Self.metadata(job).merging([
                    "error_kind": "\(failure.kind)", "now": "\(outcome.rawValue)", "error": "\(failure.message)"
                ]) { $1 })
        }
    }
}
