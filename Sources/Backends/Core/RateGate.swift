/// Where a backend asks before each call to a service with a quota. The worker's implementation
/// keeps schedules in PostgreSQL, so a limit holds across every worker process.
public protocol RateGate: Sendable {
    /// Returns when a call under `key` may go out; throws only when the gate itself is unusable
    /// or the task was cancelled while waiting.
    func acquire(_ key: String) async throws(BackendError)
    /// The service answered 429 for `key`: slow everyone down, by `retryAfterSeconds` when the
    /// service said how long.
    func rateLimited(_ key: String, retryAfterSeconds: Double?) async
}

/// No limits: for `discern prepare`-style tools and unit tests.
public struct UnlimitedRateGate: RateGate {
    public init() {}
    public func acquire(_ key: String) async throws(BackendError) {}
    public func rateLimited(_ key: String, retryAfterSeconds: Double?) async {}
}
