import ServiceClients
import DedicatedThreads
import ErrorCodes
import Foundation
import Imaging
import JobQueue
import MediaFiles
import ObjectStorage
import Postgres

/// Asks a trial's candidate about each photo of its sample that it has not answered yet, as a
/// worker would (the same preparation on dedicated threads, the same client, the service's
/// shared rate limits and spend cap), and stores each answer, or the error, in
/// discern.trial_results, never in the queue: no job, no production result, no webhook. A trial
/// stopped part way (a signal, the spend cap) is resumed by running it again.
public struct TrialRunner: Sendable {
    public struct Settings: Sendable {
        public var roots: PathRoots
        public var objects: ObjectReader?
        /// Photos in flight at once, and threads preparing them.
        public var concurrency: Int
        public var prepareThreads: Int
        /// The discern that asks (`BuildInfo.version`).
        public var release: String?

        public init(roots: PathRoots, objects: ObjectReader?, concurrency: Int, prepareThreads: Int, release: String?) {
            (self.roots, self.objects, self.concurrency, self.prepareThreads, self.release) =
                (roots, objects, concurrency, prepareThreads, release)
        }
    }

    /// How a run ended: what it stored, and why it stopped early, if it did.
    public struct Summary: Sendable, Equatable {
        public var answered = 0
        public var failed = 0
        /// Photos of the sample it did not get to (a stop), and why it stopped.
        public var left = 0
        public var stoppedBy: String?
    }

    let database: Database
    let client: any AnalysisClient
    let settings: Settings

    public init(database: Database, client: any AnalysisClient, settings: Settings) {
        (self.database, self.client, self.settings) = (database, client, settings)
    }

    /// Runs what is pending of `trial`; `progress` hears each photo stored.
    public func run(_ trial: Trials.Trial, progress: @escaping @Sendable (Summary) -> Void = { _ in }) async throws -> Summary {
        let photos = try await database.withConnection { try Trials.pending(trial, on: $0) }
        let pool = ThreadPool(name: "discern-trial", threads: settings.prepareThreads, onThreadExit: Vips.threadShutdown)
        defer { pool.shutdown() }
        let preparation = FilePreparation(pool: pool, roots: settings.roots, objects: settings.objects, truncatedRetrySeconds: 0)
        var summary = Summary()
        var next = photos.makeIterator(), number = 0
        try await withThrowingTaskGroup(of: (Trials.Photo, Outcome).self) { group in
            func start() -> Bool {
                guard summary.stoppedBy == nil, !Task.isCancelled, let photo = next.next() else { return false }
                number += 1
                let job = Job(
                    id: number, service: trial.definition.service, action: trial.definition.action, imagePath: photo.imagePath,
                    paramsJSON: photo.paramsJSON)
                group.addTask { (photo, await ask(job, preparation)) }
                return true
            }
            for _ in 0..<max(1, settings.concurrency) {
                guard start() else { break }
            }
            while let (photo, outcome) = try await group.next() {
                switch outcome {
                case .stop(let reason):
                    summary.stoppedBy = summary.stoppedBy ?? reason
                    summary.left += 1
                case .answer(let answer):
                    try await database.withConnection { try Trials.store(answer, for: photo, of: trial, on: $0) }
                    if case .answered = answer { summary.answered += 1 } else { summary.failed += 1 }
                    progress(summary)
                }
                _ = start()
            }
        }
        summary.left += photos.count - number
        if summary.stoppedBy == nil, Task.isCancelled, summary.left > 0 { summary.stoppedBy = "stopped" }
        return summary
    }

    private enum Outcome: Sendable {
        case answer(Trials.Answer)
        /// Not the photo's doing, and nothing to store: the run stops, and the photo waits for the next.
        case stop(String)
    }

    private func ask(_ job: Job, _ preparation: FilePreparation) async -> Outcome {
        let input = client.input(for: job.action)
        let prepared: FilePreparation.Prepared
        switch await preparation.plan(job, for: input) {
        case .failure(let failure): return stopOrFailed(failure)
        case .success(let plan):
            switch await preparation.prepare(job, plan, for: input) {
            case .failure(let failure): return stopOrFailed(failure)
            case .success(let done): prepared = done
            }
        }
        let started = ContinuousClock.now
        do {
            let request = AnalysisRequest(action: job.action, paramsJSON: job.paramsJSON, correlationID: "discern-trial-\(job.id)")
            let analysis = try await client.analyze(prepared.upload, request: request)
            let result = JobResult(
                analysis: analysis, preparation: prepared.facts, analyzeMilliseconds: (ContinuousClock.now - started).milliseconds,
                release: settings.release)
            return .answer(.answered(result))
        } catch  where error.code == .capReached {
            return .stop("the service's spend cap is reached: run the trial again when it lifts")
        } catch  where error.code == .cancelled || Task.isCancelled {
            return .stop("stopped")
        } catch {
            return .answer(.failed(kind: error.kind, message: error.message))
        }
    }

    private func stopOrFailed(_ failure: JobFailure) -> Outcome {
        failure.kind == .cancelled ? .stop("stopped") : .answer(.failed(kind: failure.kind.code, message: failure.message))
    }
}
