import ServiceClients
import Foundation
import JobQueue
import Logging
import Postgres
import Synchronization

/// This worker's side of the breakers shared through PostgreSQL (discern.service_breakers): what
/// it knows of each service it serves, what its own attempts say (`BreakerWindow`), and the
/// statements that trip a breaker, report a failed probe and close one.
///
/// A job of a service known to be down is handed back before its photo is prepared, before its
/// call, and when its call fails for the service's reasons: attempt not counted (the outage is
/// not the photo's). Claims skip the service in SQL; one probe at a time across every worker
/// tests it (`Job.isProbe`), and the first it answers closes the breaker.
final class ServiceBreakers: Sendable {
    private struct Known {
        var window = BreakerWindow()
        var open = false
        /// When this worker last learnt the breaker's state.
        var learnedAt = ContinuousClock.now
        /// When the next probe may go, as last learnt (the producer claims then).
        var probeAt: ContinuousClock.Instant?
        /// Jobs whose latest call went unanswered (or got a 5xx), since the last answered call:
        /// once there are three times `failedJobs` of them no call is tried again within its
        /// attempt, so an outage fails each attempt in flight once instead of three times. (A
        /// service failing one call in five runs that many failures in a row once in 30 billion
        /// calls.)
        var unanswered: Set<Int> = []
    }

    let settings: BreakerSettings
    private let database: Database
    private let workerID: String
    private let logger: Logger
    private let known = Mutex<[String: Known]>([:])

    init(settings: BreakerSettings, database: Database, workerID: String, logger: Logger) {
        self.settings = settings
        self.database = database
        self.workerID = workerID
        self.logger = logger
    }

    func isOpen(_ service: String) -> Bool { known.withLock { $0[service]?.open ?? false } }

    /// Whether the job may go on: its service is not known to be down, or it is the probe.
    func allows(_ job: Job) -> Bool { job.isProbe || !isOpen(job.service) }

    /// Distinct negative ids for failures that stand for themselves, not for their job.
    private static let witnesses = Mutex(0)
    private static func nextWitness() -> Int {
        witnesses.withLock {
            $0 -= 1; return $0
        }
    }

    /// Watches the job's calls (`CallWatch`).
    func watch(_ job: Job) -> any CallWatch { JobCalls(breakers: self, job: job) }

    fileprivate func called(_ job: Job, answered: Bool) {
        known.withLock { known in
            if answered { known[job.service]?.unanswered.removeAll() } else { known[job.service, default: Known()].unanswered.insert(job.id) }
        }
    }

    /// Whether a failed call of the job may be tried again within its attempt: never for a
    /// probe, and no longer once its service is known to be down or several jobs' calls in a
    /// row went unanswered.
    fileprivate func mayRetry(_ job: Job) -> Bool {
        guard !job.isProbe else { return false }
        return known.withLock { known in
            guard let entry = known[job.service] else { return true }
            return !entry.open && entry.unanswered.count < 3 * settings.failedJobs
        }
    }

    /// The service answered the job (a result, or a refusal of this request): for a probe, the
    /// service is back.
    func answered(_ job: Job) async {
        known.withLock { $0[job.service, default: Known()].window.record(job: job.id, failed: false, at: .now, keeping: settings.windowSeconds) }
        guard job.isProbe else { return }
        let service = job.service, workerID = self.workerID
        do {
            let closed = try await database.withConnection {
                try Breakers.close($0, service: service, by: workerID, why: "a probe (job \(job.id)) was answered")
            }
            if closed { logger.notice("service available again: a probe was answered; claiming its jobs", metadata: ["service": "\(service)"]) }
        } catch {
            logger.warning("could not close the breaker; the next probe will", metadata: ["service": "\(service)", "error": "\(error)"])
        }
        learn(service, open: false)
    }

    /// The soonest moment a probe of a service known to be down may go, if still to come: the
    /// producer looks for work then, so a probe is not late by its poll interval. (One already
    /// due is under way, or waits for a job: the database moves its time on, and says so.)
    var nextProbe: ContinuousClock.Instant? {
        let now = ContinuousClock.now
        return known.withLock { $0.values.compactMap { $0.open ? $0.probeAt : nil }.filter { $0 > now }.min() }
    }

    /// What becomes of an attempt that failed for the service's reasons.
    enum Verdict: Sendable, Equatable {
        /// The service is down: the job goes back uncounted, claimable again in so many seconds.
        case handBackLater(afterSeconds: Double)
        /// The attempt counts, with this failure (a failure rate the per-job retries are for, or
        /// a photo that failed as the probe again and again).
        case counts(JobFailure)
    }

    /// A probe's job spends its allowance from its third failed probe on (`JobFailure.Outage.probeFailed`):
    /// probes go to the jobs that failed as one least often, so by then every other waiting job
    /// failed as one twice too. Its attempt counts only once the allowance is spent and the
    /// service has completed another photo since, or after about a day (`FailureDecision`): a
    /// photo that makes the service fail ends, an outage of a night ends none. Never when the probe did not reach
    /// the service (refused, no such host, TLS): no photo was sent, so none can be the cause.
    static let probeFailuresBeforeCounting = 2

    /// - Parameter unreachable: no connection was made: each such failure counts as another
    ///   job's, since no photo can cause it (a lone job meeting a service that refuses
    ///   connections trips the breaker before its attempts run out).
    func failed(_ job: Job, _ failure: JobFailure, unreachable: Bool = false) async -> Verdict {
        if job.isProbe { return await probeFailed(job, failure, unreachable: unreachable) }
        let (tripped, open) = known.withLock { known -> (Bool, Bool) in
            let witness = unreachable ? Self.nextWitness() : job.id
            known[job.service, default: Known()].window.record(job: witness, failed: true, at: .now, keeping: settings.windowSeconds)
            let entry = known[job.service]!
            return (entry.window.isTripped(by: settings), entry.open)
        }
        if open { return .handBackLater(afterSeconds: 0) }
        if tripped {
            await trip(job.service, failure)
            return .handBackLater(afterSeconds: 0)
        }
        // Another worker may have found it down already: one look, on a failure only.
        await refresh([job.service])
        if isOpen(job.service) { return .handBackLater(afterSeconds: 0) }
        // The service's failure before this worker finds it down (a trickle of jobs reaches the
        // trip slowly, while a job's own retries come within seconds): on a job's last attempt,
        // `FailureDecision` takes it for an outage's.
        return .counts(failure.judged(.serviceFailing))
    }

    /// Reads which of `services` are down now.
    func refresh(_ services: [String]) async {
        let started = ContinuousClock.now
        guard let open = try? await database.withConnection({ try Breakers.open($0, services: services) }) else { return }
        for service in services {
            learn(service, open: open[service] != nil, probeIn: open[service], ifLearnedBefore: started)
        }
    }

    /// Jobs of these services were claimed by a claim that began at `started`: the database
    /// found their breakers closed then (claims skip open ones), so one this worker learnt open
    /// before that has closed since.
    func claimed(_ services: Set<String>, started: ContinuousClock.Instant) {
        for service in services { learn(service, open: false, ifLearnedBefore: started) }
    }

    private func trip(_ service: String, _ failure: JobFailure) async {
        learn(service, open: true, probeIn: settings.firstProbeSeconds)
        let workerID = self.workerID, first = settings.firstProbeSeconds
        do {
            let opened = try await database.withConnection {
                try Breakers.trip($0, service: service, workerID: workerID, kind: failure.kind, error: failure.message, probeAfterSeconds: first)
            }
            if opened {
                logger.warning(
                    "service unavailable: its calls fail for its own reasons across jobs; no more of its jobs are claimed, and one probe call at a time tests it",
                    metadata: [
                        "service": "\(service)", "error_kind": "\(failure.kind)", "error": "\(failure.message)",
                        "first_probe_seconds": "\(first)"
                    ])
            }
        } catch {
            // The database away too: this worker holds back on its own meanwhile.
            logger.warning("service unavailable; could not tell the other workers", metadata: ["service": "\(service)", "error": "\(error)"])
        }
    }

    private func probeFailed(_ job: Job, _ failure: JobFailure, unreachable: Bool) async -> Verdict {
        let service = job.service, workerID = self.workerID, settings = self.settings
        let reported: Breakers.ProbeFailure?
        do {
            reported = try await database.withConnection {
                try Breakers.probeFailed(
                    $0, service: service, workerID: workerID, jobID: job.id, kind: failure.kind, error: failure.message,
                    firstDelay: settings.firstProbeSeconds, maxDelay: settings.maxProbeSeconds)
            }
        } catch {
            // The database away too: the next claim's probe comes when it is back.
            learn(service, open: true, probeIn: settings.firstProbeSeconds)
            return .handBackLater(afterSeconds: settings.firstProbeSeconds)
        }
        guard let reported else {
            // Closed meanwhile (or not our probe any more): look, rather than guess.
            await refresh([service])
            return isOpen(service) ? .handBackLater(afterSeconds: 0) : .counts(failure)
        }
        logger.notice(
            "probe failed; the service is still unavailable",
            metadata: [
                "service": "\(service)", "job": "\(job.id)", "error_kind": "\(failure.kind)",
                "next_probe_seconds": "\(String(format: "%.0f", reported.nextProbeSeconds))"
            ])
        learn(service, open: true, probeIn: reported.nextProbeSeconds)
        guard unreachable || reported.jobFailedBefore < Self.probeFailuresBeforeCounting else {
            return .counts(
                failure.judged(
                    .probeFailed(
                        why: "this photo failed as the service's probe \(reported.jobFailedBefore + 1) times, "
                            + "each time after every other waiting photo had been tried")))
        }
        // The probe's job steps aside until the next probe, which then tries another photo.
        return .handBackLater(afterSeconds: reported.nextProbeSeconds)
    }

    private func learn(_ service: String, open: Bool, probeIn: Double? = nil, ifLearnedBefore moment: ContinuousClock.Instant? = nil) {
        known.withLock { known in
            var entry = known[service, default: Known()]
            if let moment, entry.learnedAt > moment { return }
            if entry.open != open {
                entry.window.reset()
                entry.unanswered.removeAll()
            }
            entry.open = open
            entry.learnedAt = .now
            entry.probeAt = open ? probeIn.map { .now + .seconds(min($0, 86_400)) } ?? entry.probeAt : nil
            known[service] = entry
        }
        WorkerMetrics.breakerOpen(service: service, open)
    }
}

/// One job's calls, as its service's breaker hears of them.
private struct JobCalls: CallWatch {
    let breakers: ServiceBreakers
    let job: Job

    func called(answered: Bool) { breakers.called(job, answered: answered) }
    func mayRetry() -> Bool { breakers.mayRetry(job) }
}
