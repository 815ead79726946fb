import AnalysisModel
import JobQueue

/// What became of one job in this worker, as the executor hands it to the completer.
enum JobOutcome: Sendable {
    /// The service answered: store the result.
    case succeeded(Job, Analysis, JobResult.Preparation, analyzeMilliseconds: Double)
    /// Record the failed attempt (retry later, or dead).
    case failed(Job, JobFailure)
    /// Not finished when the worker stopped: give the job back, attempt not counted.
    case handBack(Job)
    /// The lease was lost meanwhile (cancelled, rescued): nothing of ours may be written.
    case abandoned(Job)
    /// Its service is unavailable (`ServiceBreakers`): back to the queue, attempt not counted,
    /// claimable again in `afterSeconds`; `failure` is what its call said, if it made one.
    case handBackLater(Job, JobFailure?, afterSeconds: Double)

    var job: Job {
        switch self {
        case .succeeded(let job, _, _, _), .failed(let job, _), .handBack(let job), .abandoned(let job), .handBackLater(let job, _, _): job
        }
    }
}
