import Synchronization

/// A session-level advisory lock (`namespace`, key) that a long-lived connection holds for as
/// long as it is connected: PostgreSQL lets it go the moment the session ends, however it ends
/// (a crash, a SIGKILL, a lost network), so others read it in `pg_locks` as proof that the
/// holder lives. The key may be known after the connection is (a worker learns its own when it
/// registers); the holder takes it as soon as it knows it, and again after every reconnection.
public final class SessionLock: Sendable {
    public let namespace: Int32
    private let state = Mutex<(key: Int32?, held: Bool)>((nil, false))

    public init(namespace: Int32) {
        self.namespace = namespace
    }

    /// The key to hold from now on.
    public func hold(key: Int32) {
        state.withLock { $0 = (key, false) }
    }

    /// Whether the holder's current session holds it (for logs and tests).
    public var isHeld: Bool { state.withLock { $0.held } }

    /// Called by the holder on its own thread: takes the lock on `connection` unless held
    /// already. `pg_try_advisory_lock` never waits: an earlier session of the same holder that
    /// the server has not yet seen end still holds it, and proves the same thing meanwhile.
    func takeIfNeeded(on connection: Connection) throws {
        guard let key = state.withLock({ $0.held ? nil : $0.key }) else { return }
        let taken = try connection.value("SELECT pg_try_advisory_lock(\(namespace)::integer, \(key)::integer)", as: Bool.self)
        if taken { state.withLock { if $0.key == key { $0.held = true } } }
    }

    /// The session ended: nothing is held until the next one takes it again.
    func sessionEnded() {
        state.withLock { $0.held = false }
    }
}
