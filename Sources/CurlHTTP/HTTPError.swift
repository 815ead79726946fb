import ErrorCodes

/// A request that got no HTTP answer. (An answer with a 4xx/5xx status is a response, not this.)
public struct HTTPError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<HTTPError>

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
    public var isRetryable: Bool {
        switch code {
        case .timeout, .connectFailed, .transport, .responseTooLarge, .cancelled, .slotMissed: return true
        default: return false
        }
    }
}

/// The codes a HTTPError carries.
extension ErrorCode where Owner == HTTPError {
    public static let timeout = Self("http_timeout")
    public static let connectFailed = Self("http_connect_failed")
    public static let transport = Self("http_transport")
    public static let tls = Self("http_tls")
    public static let invalidRequest = Self("http_invalid_request")
    /// The answer was larger than the request allowed; the transfer was aborted.
    public static let responseTooLarge = Self("http_response_too_large")
    /// The task waiting for the answer was cancelled; the transfer was aborted.
    public static let cancelled = Self("http_cancelled")
    /// Not sent: its host is an internal address the request's `AddressRule` refuses.
    public static let destinationRefused = Self("http_destination_refused")
    /// Not sent: the moment it had to leave by had passed (`CurlHTTPClient.send(_:sendBy:)`).
    public static let slotMissed = Self("http_slot_missed")
}
