/// One way a job's attempt can fail: the `error_kind` stored with the job, and everything
/// discern decides by it. Every module raises its kinds from the registry
/// (`FailureKind.all`, FailureKinds.swift); the worker, the console and the docs read the same
/// rows, so what the console tells an operator is what the worker did.
public struct FailureKind: Sendable, Hashable, CustomStringConvertible {
    /// Whose fault the failure is: what an operator must fix before a retry can help.
    public enum Fault: String, Sendable, CaseIterable {
        /// The photo itself (its bytes, its format, its path): retrying the same file changes nothing.
        case file
        /// What the job asks for (its action, its parameters): fix the job, then retry.
        case job
        /// The remote service (down, slow, answering garbage): retried, and the breaker waits it out.
        case service
        /// This side: the machine, its settings, the database, a bug. Fix it, then retry.
        case system
    }

    /// Whether another attempt follows.
    public enum Retry: String, Sendable {
        case never
        /// Once, after a pause (`image_truncated`: the file may still be arriving).
        case once
        /// While attempts remain, with backoff (at least the Retry-After a service asked for).
        case yes
    }

    /// What the failed attempt costs the job.
    public enum Attempt: String, Sendable {
        /// One of its attempts.
        case spends
        /// One, but the last is handed back while it looks like an outage (up to about a day).
        case lastHandBack = "last handed back"
        /// None, up to ten times; then they count (a service that keeps refusing).
        case notCounted = "not counted"
        /// None while the service's breaker is open: the job waits for the service.
        case heldByBreaker = "held by the breaker"
        /// None, unless the worker stopped while preparing the job's file alone (a suspect).
        case ifPreparingAlone = "only if preparing it alone"
    }

    /// What the failure tells the service's breaker, shared by the workers.
    public enum Breaker: String, Sendable {
        /// Nothing: the failure is not the service's.
        case none = "-"
        /// The service answered: it is up, whatever it said about this photo.
        case up
        /// The service's trouble (when retryable): enough of these in a row trip the breaker.
        case down
    }

    public let code: String
    public let fault: Fault
    public let retry: Retry
    public let attempt: Attempt
    public let breaker: Breaker
    /// What an operator reads beside a dead job of this kind: what happened, what to do.
    public let advice: String

    init(_ code: String, _ fault: Fault, retry: Retry, attempt: Attempt = .spends, breaker: Breaker = .none, _ advice: String) {
        self.code = code
        self.fault = fault
        self.retry = retry
        self.attempt = attempt
        self.breaker = breaker
        self.advice = advice
    }

    public var description: String { code }

    /// The registry's row for a stored `error_kind`; nil for a kind it does not know (an older
    /// or newer release wrote it).
    public static func named(_ code: String) -> FailureKind? { byCode[code] ?? retired[code] }

    private static let byCode = Dictionary(all.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
    /// Codes an earlier release wrote, and rows still hold, for a kind since renamed.
    private static let retired = ["backend_unavailable": serviceNotConfigured]
}
