import CLibPQ
import DedicatedThreads
import Foundation

/// LISTENs on channels from its own thread and calls `onNotify` for each burst of
/// notifications. The connection is re-established after any loss, and `onNotify` is called
/// then too, since notifications sent meanwhile are gone. `stop` wakes the thread wherever it
/// waits and waits for it to end (and its connection to close), within a bound.
///
/// With a `SessionLock`, its session also holds that lock (a worker's proof of life). The server
/// then probes the client every few seconds (TCP keepalives), so a machine that vanished
/// without closing the connection lets the lock go in under half a minute, not hours.
public final class NotificationListener: Sendable {
    private let conninfo: String
    private let channels: [String]
    private let presence: SessionLock?
    private let onNotify: @Sendable () -> Void
    private let stopped = LockedFlag()
    private let ended = Signal(latched: true)
    /// Written once by `stop`: ends a wait for notifications, or a pause between connection
    /// attempts, at once (a poll timeout alone would hold every worker's exit up to a second).
    private let wakeUp = WakeUpPipe()

    /// - Parameter channels: fixed identifiers from code (letters and underscores), never input:
    ///   LISTEN cannot take them as parameters.
    public convenience init(
        conninfo: String, channel: String, holding presence: SessionLock? = nil,
        onNotify: @escaping @Sendable () -> Void
    ) {
        self.init(conninfo: conninfo, channels: [channel], holding: presence, onNotify: onNotify)
    }

    public init(conninfo: String, channels: [String], holding presence: SessionLock? = nil, onNotify: @escaping @Sendable () -> Void) {
        precondition(!channels.isEmpty && channels.allSatisfy { $0.allSatisfy { $0.isLetter || $0 == "_" } }, "channels must be plain identifiers")
        self.conninfo = conninfo
        self.channels = channels
        self.presence = presence
        self.onNotify = onNotify
        let thread = Thread { [self] in
            BlockingCallAudit.markCurrentThreadDedicated()
            self.listen()
            self.ended.signal()
        }
        thread.name = "discern-pg-listen"
        thread.start()
    }

    /// Ends the listening thread and waits for it, at most `seconds`: a wait for notifications
    /// or a pause between reconnections ends at once, a connection attempt when libpq gives up
    /// (connect_timeout). Past the bound it returns; the thread ends on its own.
    public func stop(waitingAtMost seconds: Double = 5) async {
        stopped.set()
        wakeUp.wake()
        await ended.wait(timeout: .seconds(seconds))
    }

    private func listen() {
        var connection: Connection?
        var pause = 0.2
        while !stopped.isSet {
            do {
                if connection == nil {
                    let fresh = try Connection(conninfo: conninfo, applicationName: "discern-listen")
                    if presence != nil { try Self.probeClient(fresh) }
                    for channel in channels { try fresh.query("LISTEN \(channel)") }
                    connection = fresh
                    pause = 0.2
                    onNotify()
                }
                if let connection, let presence { try presence.takeIfNeeded(on: connection) }
                if try connection?.waitForNotifications(timeoutMilliseconds: 1000, orWakeUp: wakeUp) ?? 0 > 0 { onNotify() }
            } catch {
                presence?.sessionEnded()
                connection = nil
                wakeUp.wait(timeoutMilliseconds: Int32(pause * 1000))
                pause = min(pause * 2, 5)
            }
        }
    }
}

extension NotificationListener {
    /// Server-side settings of a session that proves its client alive: keepalives (ignored on a
    /// Unix socket, where the kernel tells at once), and no idle timeout an administrator set
    /// for ordinary sessions, since this one is idle by design.
    static func probeClient(_ connection: Connection) throws {
        try connection.query(
            """
            SELECT set_config('tcp_keepalives_idle', '10', false), set_config('tcp_keepalives_interval', '5', false),
                   set_config('tcp_keepalives_count', '3', false), set_config('idle_session_timeout', '0', false)
            """)
    }
}

extension Connection {
    /// Waits up to `timeoutMilliseconds` for notifications on this connection, or until
    /// `wakeUp` is woken, and returns how many arrived (0 on timeout or wake-up).
    func waitForNotifications(timeoutMilliseconds: Int32, orWakeUp wakeUp: WakeUpPipe) throws -> Int {
        var count = drainNotifications()
        if count > 0 { return count }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError(.connectionLost, "the listening connection has no socket") }
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), wakeUp.pollDescriptor]
        let ready = poll(&descriptors, 2, timeoutMilliseconds)
        if ready < 0 && errno != EINTR { throw PostgresError(.connectionLost, "poll failed: errno \(errno)") }
        if ready > 0 && descriptors[0].revents != 0 {
            guard PQconsumeInput(handle) == 1 else {
                throw PostgresError(.connectionLost, String(cString: PQerrorMessage(handle)))
            }
            count = drainNotifications()
        }
        return count
    }

    private func drainNotifications() -> Int {
        var count = 0
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }
}

/// A pipe that one thread polls and another writes to once, to end the wait: owns both ends
/// and closes them once, in `deinit`. Once woken it stays readable (nothing reads it).
final class WakeUpPipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        // Without a pipe (no descriptors left) waits simply run to their timeouts.
        if pipe(&ends) != 0 { ends = [-1, -1] }
        for end in ends where end >= 0 {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Polled beside a connection's socket; a negative descriptor is ignored by poll.
    var pollDescriptor: pollfd { pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0) }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Returns after `timeoutMilliseconds`, or at once when woken.
    func wait(timeoutMilliseconds: Int32) {
        var descriptor = pollDescriptor
        _ = poll(&descriptor, 1, timeoutMilliseconds)
    }
}
