import DedicatedThreads
import Foundation
import Synchronization

/// An async HTTP client on libcurl.
///
/// `curl_easy_perform` blocks, so requests run on the client's own threads; the caller's task
/// suspends meanwhile. `threads` bounds how many requests are in flight at once. Easy handles
/// are reused, which keeps their connections alive between requests. TLS verification is on.
public final class CurlHTTPClient: Sendable {
    public struct Configuration: Sendable {
        public var threads: Int
        public var connectTimeoutSeconds: Double

        public init(threads: Int = 16, connectTimeoutSeconds: Double = 10) {
            self.threads = threads
            self.connectTimeoutSeconds = connectTimeoutSeconds
        }
    }

    private let configuration: Configuration
    private let pool: ThreadPool
    private let handles = HandleStack()

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.pool = ThreadPool(name: "discern-http", threads: configuration.threads)
    }

    deinit { pool.shutdown() }

    /// Cancelling the calling task aborts the transfer (within about a second) and throws
    /// `HTTPError` with code `cancelled`.
    /// - Parameters:
    ///   - sendAt: the request leaves no earlier (a rate-limit slot): the sending thread waits.
    ///   - sendBy: the request must leave by then: checked on the sending thread, as late as can
    ///     be before it goes; if that moment has passed, nothing is sent (code `slotMissed`).
    public func send(
        _ request: HTTPRequest, sendAt: ContinuousClock.Instant? = nil,
        sendBy: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        let connectTimeout = configuration.connectTimeoutSeconds
        let handles = self.handles
        let abort = LockedFlag()
        return try await withTaskCancellationHandler {
            try await pool.run {
                if let sendAt { try abort.sleep(until: sendAt) }
                if let sendBy, ContinuousClock.now > sendBy {
                    throw HTTPError(.slotMissed, "not sent: the request could not leave within its rate-limit slot")
                }
                let easy = try handles.take()
                defer { handles.give(easy) }
                return try easy.perform(request, connectTimeoutSeconds: connectTimeout, abort: abort)
            }
        } onCancel: {
            abort.set()
        }
    }
}

/// A transfer's abort flag: set when the task waiting for it is cancelled; libcurl's progress
/// callback reads it, and a request waiting for its rate-limit slot sleeps on it.
extension LockedFlag {
    /// Sleeps this (dedicated) thread until `moment`, looking every 20 ms whether the transfer
    /// was aborted meanwhile.
    func sleep(until moment: ContinuousClock.Instant) throws(HTTPError) {
        while case let left = moment - ContinuousClock.now, left > .zero {
            if isSet { throw HTTPError(.cancelled, "cancelled while waiting for its rate-limit slot") }
            Thread.sleep(forTimeInterval: min(Self.seconds(left), 0.02))
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Idle easy handles, reused across requests on any of the client's threads.
private final class HandleStack: Sendable {
    private let idle = Mutex<[CurlEasy]>([])

    func take() throws(HTTPError) -> CurlEasy {
        if let reused = idle.withLock({ $0.popLast() }) { return reused }
        return try CurlEasy()
    }

    func give(_ easy: CurlEasy) {
        easy.reset()
        idle.withLock { $0.append(easy) }
    }
}
