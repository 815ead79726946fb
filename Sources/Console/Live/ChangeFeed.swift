import JobQueue
import Postgres
import ServiceLifecycle
import Synchronization

/// What tells open pages that something they show changed: LISTENs on 'discern_changes' (a
/// worker's jobs finished, a cancel, jobs deleted, a worker came or went, an operator acted;
/// sql/functions/notify_change.sql) and 'discern_jobs' (jobs enqueued or retried), and counts. Each page's event stream (EventStream) watches the count.
///
/// A change nothing notifies (a worker falling silent, a lease running out) is still shown
/// within `safetyNetSeconds` (`discern console --refresh-seconds`): the count also moves on its
/// own that often.
public final class ChangeFeed: Service, Sendable {
    static let channels = [JobQueue.changesChannel, "discern_jobs"]

    private let conninfo: String?
    private let safetyNetSeconds: Int
    private let count = Mutex(0)
    private let closed = Mutex(false)

    /// - Parameter conninfo: a direct connection (LISTEN does not work through a
    ///   transaction-mode pooler); nil: the safety net alone.
    /// How long open pages go without a refresh when nothing is announced, by default.
    public static let defaultSafetyNetSeconds = 30

    public init(conninfo: String?, safetyNetSeconds: Int = ChangeFeed.defaultSafetyNetSeconds) {
        self.conninfo = conninfo
        self.safetyNetSeconds = safetyNetSeconds
    }

    /// How many changes so far; a stream sends an event when it moves.
    var version: Int { count.withLock { $0 } }
    var isClosed: Bool { closed.withLock { $0 } }

    func changed() { count.withLock { $0 += 1 } }

    public func run() async throws {
        let listener = conninfo.map { NotificationListener(conninfo: $0, channels: Self.channels) { [self] in changed() } }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(self.safetyNetSeconds)) }
            changed()
        }
        // Open streams end first (listed after the server in the service group, the feed stops
        // before it): the server's graceful shutdown would otherwise wait for every open page.
        closed.withLock { $0 = true }
        await listener?.stop()
    }
}
