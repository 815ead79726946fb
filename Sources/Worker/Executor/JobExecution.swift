import ServiceClients
import ErrorCodes
import Foundation
import JobQueue
import Telemetry
import Tracing

/// One job's way through the stages: prepare its file (CPU, within the prepare stage's room and
/// the memory budget), then, holding what it sends within that budget, call its service in a
/// network slot. Returns what became of it, which the completer writes; of its own it writes
/// only a suspect's mark (`SuspectMarks`). A job whose service is known to be down goes back
/// before each stage (`ServiceBreakers`).
struct JobExecution: Sendable {
    let clients: [String: any AnalysisClient]
    let preparation: FilePreparation
    let networkSlots: WeightedSemaphore
    let bytesInFlight: WeightedSemaphore
    let inFlight: InFlight
    let breakers: ServiceBreakers
    let suspects: SuspectMarks

    static let storeWeather: Set<FailureKind> = [.objectStoreRefused, .objectStoreUnavailable]

    func run(_ job: Job) async -> JobOutcome {
        guard let client = clients[job.service] else {
            await inFlight.prepared(job.id)
            return .failed(job, JobFailure(.serviceNotConfigured, message: "this worker is not configured for the service '\(job.service)'"))
        }
        guard breakers.allows(job) else {
            // No photo is prepared for a service known to be down.
            await inFlight.prepared(job.id)
            return .handBackLater(job, nil, afterSeconds: 0)
        }
        // A suspect's file is marked while it is read and prepared: a crash then is the file's.
        if job.runsAlone { await suspects.preparing(job) }
        let stage = await prepareFile(job, for: client.input(for: job.action))
        // A mark that could not be cleared would blame the file for a crash during the call.
        let cleared = job.runsAlone ? await suspects.prepared(job) : true
        switch stage {
        case .ended(let outcome):
            return outcome
        case .prepared(let prepared) where !cleared:
            await hold(-prepared.upload.data.count)
            return .handBack(job)
        case .prepared(let prepared):
            // What stays reserved now is what is sent, until it has been.
            let outcome = await call(client, job, prepared)
            await hold(-prepared.upload.data.count)
            return outcome
        }
    }

    /// How preparing a job's file ended: prepared, holding what it sends within the memory
    /// budget, or with the job's outcome.
    private enum Stage {
        case prepared(FilePreparation.Prepared)
        case ended(JobOutcome)
    }

    private func prepareFile(_ job: Job, for input: InputHandling) async -> Stage {
        let started = ContinuousClock.now
        // Memory is reserved before any pixel is decoded, by what the file will take
        // (`--max-mb-in-flight`): whatever lands in the folder, preparing stays within it.
        let plan: FilePreparation.Plan
        switch await preparation.plan(job, for: input) {
        case .failure(let failure) where failure.kind == .cancelled:
            await inFlight.prepared(job.id)
            return .ended(.handBack(job))
        case .failure(let failure) where Self.storeWeather.contains(failure.kind):
            // The bucket refused the worker's credential, or the store is away: the system's
            // trouble, not the photo's; the breaker holds the jobs while it lasts.
            await inFlight.prepared(job.id)
            switch await breakers.failed(job, failure, unreachable: failure.kind == .objectStoreUnavailable) {
            case .handBackLater(let after): return .ended(.handBackLater(job, failure, afterSeconds: after))
            case .counts(let counted): return .ended(.failed(job, counted))
            }
        case .failure(let failure):
            await inFlight.prepared(job.id)
            return .ended(.failed(job, failure))
        case .success(let planned):
            plan = planned
        }
        await hold(plan.memory)
        let prepared = await Traces.span("prepare") { traced in
            let prepared = await preparation.prepare(job, plan, for: input)
            switch prepared {
            case .success(let done): traced.set("discern.sent_bytes", done.upload.data.count)
            case .failure(let failure): traced.failed(failure.kind.code, failure.message)
            }
            return prepared
        }
        let took = ContinuousClock.now - started
        await inFlight.prepared(job.id, seconds: took.seconds)
        WorkerMetrics.stage("prepare", service: job.service, took)
        switch prepared {
        case .failure(let failure):
            await hold(-plan.memory)
            return .ended(failure.kind == FailureKind.cancelled ? .handBack(job) : .failed(job, failure))
        case .success(let prepared):
            await hold(prepared.upload.data.count - plan.memory)
            return .prepared(prepared)
        }
    }

    /// Changes what the job holds of the memory budget by `change` bytes. No change, no hop to
    /// the budget's actor: a job that sends no file makes none.
    private func hold(_ change: Int) async {
        if change > 0 { await bytesInFlight.acquire(change) } else if change < 0 { await bytesInFlight.release(-change) }
    }

    /// Prepared bytes are held within the memory budget; the call waits for a network slot.
    private func call(_ client: any AnalysisClient, _ job: Job, _ prepared: FilePreparation.Prepared) async -> JobOutcome {
        guard !Task.isCancelled else { return .handBack(job) }
        await networkSlots.acquire()
        let outcome = await analyze(client, job, prepared)
        await networkSlots.release()
        return outcome
    }

    private func analyze(_ client: any AnalysisClient, _ job: Job, _ prepared: FilePreparation.Prepared) async -> JobOutcome {
        // Abandoned or stopping while it waited for a slot: call nobody.
        guard !Task.isCancelled else { return .handBack(job) }
        // Found down while it waited for a slot: call nobody either.
        guard breakers.allows(job) else { return .handBackLater(job, nil, afterSeconds: 0) }
        let started = ContinuousClock.now
        do {
            let request = AnalysisRequest(
                action: job.action, paramsJSON: job.paramsJSON, correlationID: "discern-job-\(job.id)",
                watch: breakers.watch(job))
            let analysis = try await Traces.span(
                "analyze \(job.service)", kind: .client,
                ["discern.service": "\(job.service)", "discern.action": "\(job.action)"]
            ) {
                _ throws(ServiceError) in try await client.analyze(prepared.upload, request: request)
            }
            WorkerMetrics.stage("analyze", service: job.service, ContinuousClock.now - started)
            await breakers.answered(job)
            return .succeeded(job, analysis, prepared.facts, analyzeMilliseconds: (ContinuousClock.now - started).milliseconds)
        } catch  where error.code == .cancelled || error.code == .capReached || Task.isCancelled {
            // Not the job's doing: back to the queue, no attempt counted.
            return .handBack(job)
        } catch {
            let failure = JobFailure(error.registered, message: error.message, retryAfterSeconds: error.retryAfterSeconds)
            switch error.serviceSignal {
            case .down, .unreachable:
                // The service's trouble, not the photo's: while it is down the job keeps its attempts.
                switch await breakers.failed(job, failure, unreachable: error.serviceSignal == .unreachable) {
                case .handBackLater(let after): return .handBackLater(job, failure, afterSeconds: after)
                case .counts(let counted): return .failed(job, counted)
                }
            case .up:
                await breakers.answered(job)
            case .unknown:
                break
            }
            return .failed(job, failure)
        }
    }
}
