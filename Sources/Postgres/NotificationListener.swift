import CLibPQ
import DedicatedThreads
import Foundation

/// LISTENs on one channel from its own thread and calls `onNotify` for each burst of
/// notifications. The connection is re-established after any loss, and `onNotify` is called
/// then too, since notifications sent meanwhile are gone. `stop` waits for the thread to end
/// (and its connection to close), within a bound.
public final class NotificationListener: Sendable {
    private let conninfo: String
    private let channel: String
    private let onNotify: @Sendable () -> Void
    private let stopped = LockedFlag()
    private let ended = Signal(latched: true)

    /// - Parameter channel: a fixed identifier from code (letters and underscores), never input:
    ///   LISTEN cannot take it as a parameter.
    public init(conninfo: String, channel: String, onNotify: @escaping @Sendable () -> Void) {
        precondition(channel.allSatisfy { $0.isLetter || $0 == "_" }, "channel must be a plain identifier")
        self.conninfo = conninfo
        self.channel = channel
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
    /// ends within one, a pause between reconnections within 0.1, a connection attempt when
    /// libpq gives up (connect_timeout). Past the bound it returns; the thread ends on its own.
    public func stop(waitingAtMost seconds: Double = 5) async {
        stopped.set()
        await ended.wait(timeout: .seconds(seconds))
    }

    private func listen() {
        var connection: Connection?
        var pause = 0.2
        while !stopped.isSet {
            do {
                if connection == nil {
                    let fresh = try Connection(conninfo: conninfo, applicationName: "discern-listen")
                    try fresh.query("LISTEN \(channel)")
                    connection = fresh
                    pause = 0.2
                    onNotify()
                }
                if try connection?.waitForNotifications(timeoutMilliseconds: 1000) ?? 0 > 0 { onNotify() }
            } catch {
                connection = nil
                // In slices, so that stop is heard within 0.1 s.
                let until = Date().addingTimeInterval(pause)
                while !stopped.isSet && Date() < until { Thread.sleep(forTimeInterval: 0.1) }
                pause = min(pause * 2, 5)
            }
        }
    }
}

extension Connection {
    /// Waits up to `timeoutMilliseconds` for notifications on this connection and returns how
    /// many arrived (0 on timeout).
    func waitForNotifications(timeoutMilliseconds: Int32) throws -> Int {
        var count = drainNotifications()
        if count > 0 { return count }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError(.connectionLost, "the listening connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 && errno != EINTR { throw PostgresError(.connectionLost, "poll failed: errno \(errno)") }
        if ready > 0 {
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
