/// A request that got no HTTP answer. (An answer with a 4xx/5xx status is a response, not this.)
public struct HTTPError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case timeout = "http_timeout"
        case connectFailed = "http_connect_failed"
        case transport = "http_transport"
        case tls = "http_tls"
        case invalidRequest = "http_invalid_request"
        /// The answer was larger than the request allowed; the transfer was aborted.
        case responseTooLarge = "http_response_too_large"
        /// The task waiting for the answer was cancelled; the transfer was aborted.
        case cancelled = "http_cancelled"
    }

    public let code: Code
    /// Already redacted: no query string, no signature.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = Redact.text(message)
    }

    public var description: String { message }

    /// Network trouble passes, and so may a garbled answer; a malformed URL or a TLS trust
    /// failure does not.
    public var isTransient: Bool {
        switch code {
        case .timeout, .connectFailed, .transport, .responseTooLarge, .cancelled: return true
        case .tls, .invalidRequest: return false
        }
    }
}
