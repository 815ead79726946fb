import Foundation
import Logging
import Synchronization

/// Hands every request of a process the credentials of one source, fetched once and shared by
/// all its threads, and fetched again before they run out: from halfway through their lifetime
/// or 10 minutes before they expire, whichever is later. The first request past that moment
/// fetches them (and is signed with the new ones) while every other still gets the old ones;
/// only requests that find none they may use wait, for that one fetch. A fetch that fails is
/// not repeated for 5 s, so a refused token does not turn every job into a call to STS. The
/// fetch runs in the requesting task itself: no task outlives the requests that wait for it.
public final class CredentialProvider: Sendable {
    public let source: CredentialSource
    private let fetch: @Sendable () async throws(ObjectStorageError) -> AWSCredentials
    private let clock: StoreClock
    private let state: Mutex<State>
    private let logger: Logger?
    /// This host's monotonic clock (a test's own, in the tests): for the holds, which a clock
    /// correction must not stretch.
    private let uptime: @Sendable () -> ContinuousClock.Instant

    /// Credentials are not used in their last 15 s: a request signed with them must arrive in time.
    static let margin: TimeInterval = 15
    /// How long a failed fetch is answered with its error before another is tried.
    static let failureHold: TimeInterval = 5

    private struct State {
        var current: AWSCredentials?
        /// When `current` was fetched, on this host's monotonic clock.
        var fetchedAt: ContinuousClock.Instant?
        /// `current` replaced credentials the store refused (or the next fetch will).
        var currentAnswersRefusal = false
        var nextAnswersRefusal = false
        var refreshAt: Date?
        /// A request is fetching; the others that have nothing to use wait for it here.
        var fetching = false
        var waiting: [CheckedContinuation<Fetched, Never>] = []
        /// The last fetch's failure, held on the monotonic clock (a clock correction in between
        /// must not stretch the hold).
        var failure: (error: ObjectStorageError, at: ContinuousClock.Instant)?
    }

    /// What a waiting request learns when the fetch ends: it was cancelled with the task that
    /// fetched, and the request tries again (fetching itself, if need be).
    private enum Fetched: Sendable {
        case credentials(AWSCredentials)
        case failed(ObjectStorageError)
        case abandoned
    }

    convenience init(source: CredentialSource, clock: StoreClock, fetcher: CredentialFetcher, logger: Logger?) {
        switch source {
        case .keys(let credentials, _):
            self.init(source: source, clock: clock, current: credentials, logger: logger) { credentials }
        case .webIdentity(let identity):
            self.init(source: source, clock: clock, logger: logger) { () async throws(ObjectStorageError) in try await identity.fetch(fetcher) }
        case .container(let endpoint):
            self.init(source: source, clock: clock, logger: logger) { () async throws(ObjectStorageError) in try await endpoint.fetch(fetcher) }
        case .instanceMetadata(let metadata):
            self.init(source: source, clock: clock, logger: logger) { () async throws(ObjectStorageError) in try await metadata.fetch(fetcher) }
        }
    }

    init(
        source: CredentialSource, clock: StoreClock, current: AWSCredentials? = nil, logger: Logger? = nil,
        uptime: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        fetch: @escaping @Sendable () async throws(ObjectStorageError) -> AWSCredentials
    ) {
        self.source = source
        self.clock = clock
        self.fetch = fetch
        self.logger = logger
        self.uptime = uptime
        state = Mutex(State(current: current))
    }

    /// Credentials to sign with now.
    public func credentials() async throws(ObjectStorageError) -> AWSCredentials {
        while true {
            let now = clock.now()
            let step: Step = try state.withLock { state throws(ObjectStorageError) in
                if let current = state.current, Self.usable(current, at: now) {
                    guard let refreshAt = state.refreshAt, now >= refreshAt, !state.fetching, !holding(state.failure) else {
                        return .use(current)
                    }
                    state.fetching = true
                    return .refresh(keeping: current)
                }
                if state.fetching { return .wait }
                if let failure = state.failure, holding(failure) { throw failure.error }
                state.fetching = true
                return .fetch
            }
            switch step {
            case .use(let credentials):
                return credentials
            case .refresh(let old):
                // The old ones still serve: a failed refresh is logged and held, not thrown.
                return (try? await fetchNow()) ?? old
            case .fetch:
                return try await fetchNow()
            case .wait:
                switch await waitForFetch() {
                case .credentials(let credentials): return credentials
                case .failed(let error): throw error
                case .abandoned: continue
                }
            }
        }
    }

    private enum Step {
        case use(AWSCredentials)
        case refresh(keeping: AWSCredentials)
        case fetch
        case wait
    }

    /// The request that set `fetching` fetches, stores what it got and tells the waiting ones.
    private func fetchNow() async throws(ObjectStorageError) -> AWSCredentials {
        let outcome: Fetched
        do throws(ObjectStorageError) {
            let fetched = try await fetch()
            let at = clock.now()
            guard Self.usable(fetched, at: at) else {
                // Handed out already spent (a source in trouble, or this host's clock far ahead):
                // held as a failure, or every request would fetch again at once.
                throw ObjectStorageError(
                    .unavailable,
                    "it handed out credentials (access key \(fetched.accessKeyID)) that expire at \(fetched.expiration.map { "\($0)" } ?? "?"), within \(String(format: "%.0f", Self.margin)) s of now or before"
                )
            }
            logger?.info(
                "bucket credentials fetched",
                metadata: [
                    "source": "\(source.kind)", "access_key": "\(fetched.accessKeyID)",
                    "expires_in_seconds": "\(fetched.expiration.map { String(format: "%.0f", $0.timeIntervalSince(at)) } ?? "never")"
                ])
            outcome = finish(.credentials(fetched), at: at)
        } catch  where error.code == .cancelled {
            _ = finish(.abandoned, at: clock.now())
            throw error
        } catch {
            let named = ObjectStorageError(
                error.code == .refused ? .refused : .unavailable, "bucket credentials from \(source): \(error.message)", storeCode: error.storeCode)
            logger?.warning("bucket credentials could not be fetched", metadata: ["error": "\(named.message)"])
            outcome = finish(.failed(named), at: clock.now())
        }
        switch outcome {
        case .credentials(let credentials): return credentials
        case .failed(let error): throw error
        case .abandoned: throw ObjectStorageError(.cancelled, "fetching bucket credentials was cancelled")
        }
    }

    private func finish(_ outcome: Fetched, at moment: Date) -> Fetched {
        let waiting = state.withLock { state in
            switch outcome {
            case .credentials(let fetched):
                state.current = fetched
                state.fetchedAt = uptime()
                state.currentAnswersRefusal = state.nextAnswersRefusal
                state.nextAnswersRefusal = false
                state.refreshAt = fetched.expiration.map { Self.refreshMoment(expiration: $0, fetchedAt: moment) }
                state.failure = nil
            case .failed(let error):
                state.failure = (error, uptime())
            case .abandoned:
                break
            }
            state.fetching = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: outcome) }
        return outcome
    }

    /// Waits for the fetch under way; one that ended before this request got in line is
    /// reported as abandoned, and the request looks again.
    private func waitForFetch() async -> Fetched {
        await withCheckedContinuation { continuation in
            let queued = state.withLock { state in
                guard state.fetching else { return false }
                state.waiting.append(continuation)
                return true
            }
            if !queued { continuation.resume(returning: .abandoned) }
        }
    }

    /// The store refused `used` as expired or unknown (a session revoked or cut short): the next
    /// request fetches new ones, unless a fetch since has already replaced them. Long-lived keys
    /// are never fetched again, nor are credentials that themselves replaced refused ones less
    /// than 30 s ago: a store that refuses whatever the source hands out (another partition,
    /// another store's endpoint) costs one fetch per 30 s, not one per request. Returns whether
    /// new ones will be fetched (or already were).
    @discardableResult
    public func refused(_ used: AWSCredentials) -> Bool {
        guard source.isRefreshed else { return false }
        return state.withLock { state in
            guard state.current == used else { return true }
            if state.currentAnswersRefusal, let fetchedAt = state.fetchedAt, uptime() - fetchedAt < Self.freshFor { return false }
            state.current = nil
            state.failure = nil
            state.nextAnswersRefusal = true
            return true
        }
    }

    /// Credentials fetched for a refusal this recently are not fetched again when it is repeated.
    static let freshFor = Duration.seconds(30)

    /// What the last fetch said, when it failed: the source and its refusal.
    public var lastFailure: ObjectStorageError? { state.withLock { $0.failure?.error } }

    static func usable(_ credentials: AWSCredentials, at now: Date) -> Bool {
        guard let expiration = credentials.expiration else { return true }
        return now < expiration.addingTimeInterval(-margin)
    }

    /// Halfway through the lifetime, or 10 minutes before the end, whichever is later.
    static func refreshMoment(expiration: Date, fetchedAt: Date) -> Date {
        let lifetime = max(0, expiration.timeIntervalSince(fetchedAt))
        return expiration.addingTimeInterval(-min(600, lifetime / 2))
    }

    private func holding(_ failure: (error: ObjectStorageError, at: ContinuousClock.Instant)?) -> Bool {
        guard let failure else { return false }
        return uptime() - failure.at < .seconds(Self.failureHold)
    }
}
