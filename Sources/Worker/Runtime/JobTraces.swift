import ErrorCodes
import JobQueue
import Synchronization
import Telemetry
import Tracing

/// Each job's spans while this worker holds it (docs/tracing.md): opened when the job is
/// claimed, run in by the executor, taken by the completer when it lets the job go and ended
/// once its outcome is written. A job's first attempt continues the trace of its enqueue (its
/// stored `traceparent`); a later attempt starts a trace of its own, linked to that one. While
/// tracing is off nothing is kept.
final class JobTraces: Sendable {
    /// One job's open spans, ended together with what became of it.
    struct Open: Sendable {
        let process: Traced
        var complete: Traced = .none

        func end(_ outcome: String, failure: JobFailure? = nil) {
            complete.set("discern.outcome", outcome)
            process.set("discern.outcome", outcome)
            if let failure { process.failed(failure.kind.code, failure.message) }
            complete.end()
            process.end()
        }
    }

    private let open = Mutex<[Int: Open]>([:])

    /// A claim that took `jobs` (the ones this worker runs: not those it runs already), begun
    /// `since`: its span links to each job's trace, and each job's process span starts.
    func claimed(_ jobs: [Job], traceparents: [Int: String], since: Traces.Instant) {
        guard Traces.isOn, !jobs.isEmpty else { return }
        let services = Set(jobs.map(\.service))
        let service = services.count == 1 ? services.first : nil
        let claim = Traces.begin(
            ["claim", service].compactMap { $0 }.joined(separator: " "), kind: .client, at: since,
            Messaging.attributes("claim", type: "receive", service: service))
        claim.set("messaging.batch.message_count", jobs.count)
        var started: [Int: Open] = [:]
        for job in jobs {
            let enqueued = traceparents[job.id]
            claim.link(to: enqueued)
            let parent: Traces.Parent = job.attempt <= 1 ? .remote(traceparent: enqueued) : .newTraceLinked(to: enqueued)
            let process = Traces.begin(
                "process \(job.service)", kind: .consumer, parent: parent,
                Messaging.attributes("process", type: "process", service: job.service, jobID: job.id))
            process.set("discern.attempt", job.attempt)
            started[job.id] = Open(process: process)
        }
        claim.end()
        open.withLock { $0.merge(started) { _, new in new } }
    }

    /// The span a job runs in (prepare, analyze and each call are its children).
    func process(_ jobID: Int) -> Traced {
        guard Traces.isOn else { return .none }
        return open.withLock { $0[jobID]?.process } ?? .none
    }

    /// The outcomes of `jobs` are about to be written: each gets its complete span.
    func completing(_ jobs: some Sequence<Job>) {
        guard Traces.isOn else { return }
        open.withLock { open in
            for job in jobs {
                guard let process = open[job.id]?.process else { continue }
                open[job.id]?.complete = Traces.begin(
                    "complete \(job.service)", kind: .client, parent: .span(process),
                    Messaging.attributes("complete", type: "settle", service: job.service, jobID: job.id))
            }
        }
    }

    /// Takes a job's spans, for its completer to end once its outcome is written: taken before
    /// the job leaves the worker's hands, so a claim of it that follows the write starts spans
    /// of its own.
    func take(_ jobID: Int) -> Open? {
        guard Traces.isOn else { return nil }
        return open.withLock { $0.removeValue(forKey: jobID) }
    }
}
