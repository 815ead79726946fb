/// Where a client asks before each call to a service with a quota. The worker's implementation
/// keeps schedules in PostgreSQL, so a limit holds across every worker process.
public protocol RateGate: Sendable {
    /// Reserves a slot for a call under `key` (`RateSlot`): when it may go out and how late it
    /// may still go. Throws only when the gate itself is unusable.
    func acquire(_ key: String) async throws(ServiceError) -> RateSlot
    /// The service answered 429 for `key`: slow everyone down, by `retryAfterSeconds` when the
    /// service said how long.
    func rateLimited(_ key: String, retryAfterSeconds: Double?) async
    /// A slot of `key` was not used (its call could not leave in time): it is not a billed call.
    func unused(_ key: String) async
}

extension RateGate {
    public func unused(_ key: String) async {}
}

/// A call's place in a shared schedule. A service counts calls where they arrive, so a call that
/// leaves long after its slot (a loaded machine woke it late) bunches up with the calls of later
/// slots: it waits for `sendAt` and must not leave after `sendBy`; if it cannot, it takes a new
/// slot. Both are kept on the thread that sends (`CurlHTTPClient.send`), as close to the wire as
/// can be: a task on Swift's shared pool can wake far later than asked when the pool is busy.
public struct RateSlot: Sendable {
    /// nil: no limit applies, the call may go whenever.
    public let sendAt: ContinuousClock.Instant?
    public let sendBy: ContinuousClock.Instant?

    public init(sendAt: ContinuousClock.Instant?, sendBy: ContinuousClock.Instant?) {
        self.sendAt = sendAt
        self.sendBy = sendBy
    }

    public static let anytime = RateSlot(sendAt: nil, sendBy: nil)

    /// How long after its slot a call may still leave. Calls then leave within this much of
    /// their slots, so a service sees at most `burst + rate × (window + maxLateness)` calls in
    /// any window; Image Discerner's 1.25 s spacing keeps two starts at least 1.05 s apart, never
    /// in the same wall-clock second.
    public static let maxLateness: Duration = .milliseconds(200)
}

/// No limits: for `discern prepare`-style tools and unit tests.
public struct UnlimitedRateGate: RateGate {
    public init() {}
    public func acquire(_ key: String) async throws(ServiceError) -> RateSlot { .anytime }
    public func rateLimited(_ key: String, retryAfterSeconds: Double?) async {}
}
