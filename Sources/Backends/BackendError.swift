import Foundation
import CurlHTTP

/// A failed call to an analysis service, classified for the queue: retry or give up.
/// Messages never contain credentials or presigned-URL signatures.
public struct BackendError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case rateLimited = "http_429"
        case serverError = "http_5xx"
        case clientError = "http_4xx"
        case network = "network"
        case timeout = "timeout"
        case uploadExpired = "upload_url_expired"
        case uploadRejected = "upload_rejected"
        case analysisFailed = "analysis_failed"
        case badResponse = "bad_response"
        case unsupportedAction = "unsupported_action"
        case misconfigured = "misconfigured"
    }

    public let code: Code
    public let message: String
    public let retryable: Bool
    /// How long the service asked us to wait, when it said.
    public let retryAfterSeconds: Double?

    public init(_ code: Code, _ message: String, retryable: Bool, retryAfterSeconds: Double? = nil) {
        self.code = code
        self.message = Redact.text(message)
        self.retryable = retryable
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var kind: String { code.rawValue }
    public var description: String { message }

    /// The usual reading of an HTTP status an API answered with.
    static func status(_ response: HTTPResponse, during step: String) -> BackendError {
        let detail = "\(step) answered HTTP \(response.status): \(response.bodySnippet)"
        switch response.status {
        case 429:
            return BackendError(.rateLimited, detail, retryable: true, retryAfterSeconds: RetryAfter.seconds(response))
        case 408:
            return BackendError(.timeout, detail, retryable: true)
        case 500...599:
            return BackendError(.serverError, detail, retryable: true, retryAfterSeconds: RetryAfter.seconds(response))
        default:
            return BackendError(.clientError, detail, retryable: false)
        }
    }

    static func transport(_ error: any Error, during step: String) -> BackendError {
        guard let error = error as? HTTPError else {
            return BackendError(.network, "\(step) failed: \(error)", retryable: true)
        }
        let code: Code = error.code == .timeout ? .timeout : (error.isTransient ? .network : .misconfigured)
        return BackendError(code, "\(step) failed: \(error.message)", retryable: error.isTransient)
    }
}

/// Reads `Retry-After`: delta-seconds or an HTTP date.
enum RetryAfter {
    static func seconds(_ response: HTTPResponse) -> Double? {
        guard let value = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return min(seconds, 3600) }
        return nil
    }
}
