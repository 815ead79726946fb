/// A request that got no HTTP answer. (An answer with a 4xx/5xx status is a response, not this.)
public struct HTTPError: Error, CustomStringConvertible, Sendable {
    /// A stable code (its `rawValue` is what a database or dashboard sees). A struct, not an
    /// enum: codes can be added without breaking anyone's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let timeout = Code("http_timeout")
        public static let connectFailed = Code("http_connect_failed")
        public static let transport = Code("http_transport")
        public static let tls = Code("http_tls")
        public static let invalidRequest = Code("http_invalid_request")
        /// The answer was larger than the request allowed; the transfer was aborted.
        public static let responseTooLarge = Code("http_response_too_large")
        /// The task waiting for the answer was cancelled; the transfer was aborted.
        public static let cancelled = Code("http_cancelled")
        /// Not sent: its host is an internal address the request's `AddressRule` refuses.
        public static let destinationRefused = Code("http_destination_refused")
        /// Not sent: the moment it had to leave by had passed (`CurlHTTPClient.send(_:sendBy:)`).
        public static let slotMissed = Code("http_slot_missed")
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
    public var isRetryable: Bool {
        switch code {
        case .timeout, .connectFailed, .transport, .responseTooLarge, .cancelled, .slotMissed: return true
        default: return false
        }
    }
}
