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
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let connectTimeout = configuration.connectTimeoutSeconds
        let handles = self.handles
        let abort = AbortFlag()
        return try await withTaskCancellationHandler {
            try await pool.run {
                let easy = try handles.take()
                defer { handles.give(easy) }
                return try easy.perform(request, connectTimeoutSeconds: connectTimeout, abort: abort)
            }
        } onCancel: {
            abort.set()
        }
    }
}

/// Set when the task waiting for a transfer is cancelled; libcurl's progress callback reads it.
final class AbortFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Idle easy handles, reused across requests on any of the client's threads.
private final class HandleStack: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [CurlEasy] = []

    func take() throws(HTTPError) -> CurlEasy {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        if let reused { return reused }
        return try CurlEasy()
    }

    func give(_ easy: CurlEasy) {
        easy.reset()
        lock.lock()
        idle.append(easy)
        lock.unlock()
    }
}
