import ErrorCodes
import SQLSchema

/// What a failed attempt costs its job, decided in one place from explicit facts: whether the
/// attempt is spent or handed back, whether the job runs again and when, and the note an
/// operator reads beside the error. The statement that records it (`Queries.Jobs.recordFailure`)
/// only writes what was decided, guarded by the facts it was decided on. Nothing else reads a
/// kind's retry or attempt rule (`FailureKind`): the preparation and the breaker say what
/// happened (`JobFailure`), this says what it costs.
///
/// The rules:
/// - A kind retried `never` ends the job; `once` is tried again on the first attempt only (a
///   truncated file may still be arriving); `yes` while attempts remain.
/// - An attempt the service could not start (the kind's row: not counted) is handed back, up to
///   `QueueConstants.maxHandBacks` times; past that it counts, so a service that refuses forever
///   cannot keep a job alive forever.
/// - The last attempt of an outage is handed back too, with a wait doubled once per hand-back
///   before, up to the backoff's longest (ten of them span about an hour): the last attempt of a
///   kind whose row says so (`last handed back`: a file that could not be read), or of a failure
///   the breaker found the service's, and any attempt of a photo that failed as the service's
///   probe again and again. Past the allowance it counts only if the service completed another
///   photo since this one last failed (then the photo is the cause), or after
///   `QueueConstants.outageHandBacks` hand-backs, about a day: an outage of a night ends no
///   photo; a photo the service always fails on still ends.
public struct FailureDecision: Sendable, Equatable {
    /// The facts the decision reads; the row's own are re-checked when it is written.
    public struct Facts: Sendable, Equatable {
        public var kind: FailureKind
        /// What the breaker found of the service (`JobFailure.outage`).
        public var outage: JobFailure.Outage
        /// Attempts the job has made, this one included.
        public var attempts: Int
        public var maxAttempts: Int
        /// Attempts handed back so far.
        public var handBacks: Int
        /// The wait before another attempt (already at least the service's Retry-After).
        public var backoffSeconds: Double
        /// The backoff's longest wait: a growing hand-back never waits longer.
        public var maxBackoffSeconds: Double

        public init(
            kind: FailureKind, outage: JobFailure.Outage = .none, attempts: Int, maxAttempts: Int, handBacks: Int,
            backoffSeconds: Double, maxBackoffSeconds: Double
        ) {
            self.kind = kind
            self.outage = outage
            self.attempts = attempts
            self.maxAttempts = maxAttempts
            self.handBacks = handBacks
            self.backoffSeconds = backoffSeconds
            self.maxBackoffSeconds = maxBackoffSeconds
        }

        /// Whether this attempt is an outage's, to be handed back with a growing wait.
        var lastAttemptOfOutage: Bool {
            switch outage {
            case .probeFailed: return true
            case .serviceFailing: return attempts >= maxAttempts
            case .none: return kind.attempt == .lastHandBack && attempts >= maxAttempts
            }
        }

        var retryable: Bool {
            if lastAttemptOfOutage { return true }
            switch kind.retry {
            case .never: return false
            case .once: return attempts == 1
            case .yes: return true
            }
        }

        var countsAsAttempt: Bool { !lastAttemptOfOutage && kind.attempt != .notCounted }

        /// Why the attempt is an outage's, for the note.
        var outageReason: String {
            let whose = kind.fault == .service ? "the service's" : "the system's"
            if case .probeFailed(let why) = outage { return "\(why); the failure is \(whose)" }
            return "its last attempt; the failure is \(whose)"
        }
    }

    /// Whether the attempt is spent (false: handed back).
    public let spent: Bool
    /// The job's attempts and hand-backs once this failure is recorded.
    public let attemptsAfter: Int
    public let handBacksAfter: Int
    /// Seconds until the job may run again; nil when it ends dead.
    public let retryAfterSeconds: Double?
    /// What the job's `last_error` gets after the failure's own message ("" for nothing).
    public let note: String

    public var isDead: Bool { retryAfterSeconds == nil }

    /// The highest `given_back` stored (the column is a smallint).
    static let handBacksCeiling = 30000

    /// - Parameter serviceCompletedAnotherSince: whether the job's service completed another job
    ///   since this one last failed; asked only when the rule needs it (it reads the queue).
    public static func decide(_ facts: Facts, serviceCompletedAnotherSince: () throws -> Bool) rethrows -> FailureDecision {
        let handBacks = facts.handBacks
        let spent: Bool
        if facts.countsAsAttempt {
            spent = true
        } else if handBacks < QueueConstants.maxHandBacks {
            spent = false
        } else if !facts.lastAttemptOfOutage || handBacks >= QueueConstants.outageHandBacks {
            spent = true
        } else {
            spent = try serviceCompletedAnotherSince()
        }
        let keptRefusing = !facts.countsAsAttempt && spent
        let attempts = facts.attempts - (spent ? 0 : 1)
        let again = facts.retryable && attempts < facts.maxAttempts
        var wait = max(0, facts.backoffSeconds)
        if facts.lastAttemptOfOutage && !spent {
            wait = max(wait, min(facts.maxBackoffSeconds, wait * Double(1 << min(max(handBacks, 0), 20))))
        }
        let note: String
        switch (facts.lastAttemptOfOutage, spent, keptRefusing) {
        case (true, false, _):
            note = " (\(facts.outageReason); handed back, not spent: \(handBacks + 1) time(s) so far)"
        case (true, _, true) where handBacks >= QueueConstants.outageHandBacks:
            note = " (handed back \(handBacks) times over about a day: now the attempt counts; discern retry once what failed it is mended)"
        case (true, _, true):
            note = " (other photos of this service succeeded since this one last failed, after \(handBacks) hand-backs: now the attempt counts)"
        case (false, _, true):
            note = " (the service kept refusing: \(handBacks) attempts were handed back before, now they count)"
        case (false, _, false) where facts.kind.retry == .once && again:
            note = " (trying once more later)"
        default:
            note = ""
        }
        return FailureDecision(
            spent: spent, attemptsAfter: attempts, handBacksAfter: spent ? handBacks : min(handBacks + 1, handBacksCeiling),
            retryAfterSeconds: again ? wait : nil, note: note)
    }
}
