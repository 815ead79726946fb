import Foundation
import Logging
import Synchronization

/// Hands every request of a process the credentials of one source, fetched once and shared by
/// all its threads, and fetched again before they run out: from halfway through their lifetime
/// or 10 minutes before they expire, whichever is later, in the background while the old ones
/// still serve. Only a request that finds none it may use waits, and a fetch that fails is
/// not repeated for 5 s, so a refused token does not turn every job into a call to STS.
public final class CredentialProvider: Sendable {
    public let source: CredentialSource
    private let fetch: @Sendable () async throws(ObjectStorageError) -> AWSCredentials
    private let clock: StoreClock
    private let state: Mutex<State>
    private let logger: Logger?

    /// Credentials are not used in their last 15 s: a request signed with them must arrive in time.
    static let margin: TimeInterval = 15
    /// How long a failed fetch is answered with its error before another is tried.
    static let failureHold: TimeInterval = 5

    private struct State {
        var current: AWSCredentials?
        var refreshAt: Date?
        var refreshing: Task<AWSCredentials, any Error>?
        var failure: (error: ObjectStorageError, at: Date)?
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
        fetch: @escaping @Sendable () async throws(ObjectStorageError) -> AWSCredentials
    ) {
        self.source = source
        self.clock = clock
        self.fetch = fetch
        self.logger = logger
        state = Mutex(State(current: current))
    }

    /// Credentials to sign with now.
    public func credentials() async throws(ObjectStorageError) -> AWSCredentials {
        let now = clock.now()
        let next: Next = try state.withLock { state throws(ObjectStorageError) in
            if let current = state.current, Self.usable(current, at: now) {
                if let refreshAt = state.refreshAt, now >= refreshAt, state.refreshing == nil, !Self.holding(state.failure, at: now) {
                    state.refreshing = startFetch()
                }
                return .ready(current)
            }
            if let refreshing = state.refreshing { return .waitFor(refreshing) }
            if let failure = state.failure, Self.holding(failure, at: now) { throw failure.error }
            let fetching = startFetch()
            state.refreshing = fetching
            return .waitFor(fetching)
        }
        switch next {
        case .ready(let credentials):
            return credentials
        case .waitFor(let fetching):
            do {
                return try await fetching.value
            } catch let error as ObjectStorageError {
                throw error
            } catch {
                throw ObjectStorageError(.unavailable, "fetching bucket credentials from \(source) failed: \(error)")
            }
        }
    }

    private enum Next: Sendable {
        case ready(AWSCredentials)
        case waitFor(Task<AWSCredentials, any Error>)
    }

    /// The store refused `used` as expired or unknown: the next request fetches new ones, unless
    /// a fetch since has already replaced them. Long-lived keys are never fetched again.
    /// Returns whether new ones will be fetched.
    @discardableResult
    public func refused(_ used: AWSCredentials) -> Bool {
        guard source.isRefreshed else { return false }
        return state.withLock { state in
            if state.current == used {
                state.current = nil
                state.failure = nil
            }
            return true
        }
    }

    /// What the last fetch said, when it failed: the source and its refusal.
    public var lastFailure: ObjectStorageError? { state.withLock { $0.failure?.error } }

    private func startFetch() -> Task<AWSCredentials, any Error> {
        Task { [self] in
            do throws(ObjectStorageError) {
                let fetched = try await fetch()
                let at = clock.now()
                state.withLock { state in
                    state.current = fetched
                    state.refreshAt = fetched.expiration.map { Self.refreshMoment(expiration: $0, fetchedAt: at) }
                    state.refreshing = nil
                    state.failure = nil
                }
                logger?.info(
                    "bucket credentials fetched",
                    metadata: [
                        "source": "\(source.kind)", "access_key": "\(fetched.accessKeyID)",
                        "expires_in_seconds": "\(fetched.expiration.map { String(format: "%.0f", $0.timeIntervalSince(at)) } ?? "never")"
                    ])
                return fetched
            } catch {
                let named = ObjectStorageError(
                    error.code == .cancelled ? .cancelled : (error.code == .refused ? .refused : .unavailable),
                    "bucket credentials from \(source): \(error.message)", storeCode: error.storeCode)
                state.withLock { state in
                    state.refreshing = nil
                    if named.code != .cancelled { state.failure = (named, clock.now()) }
                }
                if named.code != .cancelled { logger?.warning("bucket credentials could not be fetched", metadata: ["error": "\(named.message)"]) }
                throw named
            }
        }
    }

    static func usable(_ credentials: AWSCredentials, at now: Date) -> Bool {
        guard let expiration = credentials.expiration else { return true }
        return now < expiration.addingTimeInterval(-margin)
    }

    /// Halfway through the lifetime, or 10 minutes before the end, whichever is later.
    static func refreshMoment(expiration: Date, fetchedAt: Date) -> Date {
        let lifetime = max(0, expiration.timeIntervalSince(fetchedAt))
        return expiration.addingTimeInterval(-min(600, lifetime / 2))
    }

    private static func holding(_ failure: (error: ObjectStorageError, at: Date)?, at now: Date) -> Bool {
        guard let failure else { return false }
        return now.timeIntervalSince(failure.at) < failureHold
    }
}
