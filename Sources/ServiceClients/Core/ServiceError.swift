import CurlHTTP
import ErrorCodes
import Foundation
import Telemetry

/// A failed call to an analysis service, classified for the queue: retry or give up.
/// Whether it is retried and what it tells the breaker are the registry's (`FailureKind`), by
/// its finer kind when it has one. Messages never contain credentials or presigned-URL signatures.
public struct ServiceError: Error, CustomStringConvertible, Sendable {
    public typealias Code = FailureCode<ServiceError>

    public let code: Code
    public let message: String
    /// Tried again (within the call, and by the queue), as its kind's row says.
    public var isRetryable: Bool { registered.retry != .never }
    /// How long the service asked us to wait, when it said.
    public let retryAfterSeconds: Double?
    /// A finer `error_kind` than the code gives, e.g. `ooto_multiple_faces`.
    private let specificKind: FailureKind?
    /// No connection was made (refused, no such host, the TLS handshake failed): nothing of
    /// the photo was sent, so the failure cannot be the photo's.
    private(set) var unreachable = false

    /// - Parameter kind: a finer kind than `code` (the registry's row for what one service said).
    public init(_ code: Code, _ message: String, retryAfterSeconds: Double? = nil, kind: FailureKind? = nil) {
        self.code = code
        self.message = Redact.text(message)
        self.retryAfterSeconds = retryAfterSeconds
        self.specificKind = kind
    }

    /// What this failure says about the service itself, for the breaker shared by the workers.
    public enum ServiceSignal: Sendable, Equatable {
        /// The service's own trouble, whatever the photo: reset connections, timeouts, 5xx, a
        /// 429 that waiting its Retry-After within the attempt did not cure, a garbled answer.
        case down
        /// Not even reached (refused, DNS, TLS): the service's trouble for certain, whichever
        /// job meets it, however often.
        case unreachable
        /// The service answered, and refused or could not read this request: it is up.
        case up
        /// Nothing was learnt of the service (this side's limits, settings, shutdown).
        case unknown
    }

    /// By the code's row: a garbled or oversized 200 that may read right next time (a
    /// maintenance page, a proxy's HTML, a cut body) is the service's weather too, answered by
    /// every call, so it trips the breaker instead of spending every waiting photo's attempts.
    public var serviceSignal: ServiceSignal {
        if unreachable { return .unreachable }
        switch code.kind.breaker {
        case .down: return .down
        case .up: return .up
        case .none: return .unknown
        }
    }

    /// The `error_kind` a dashboard groups by.
    public var kind: String { registered.code }

    /// The registry's row for this failure, its finer kind's when it has one: the job's
    /// `error_kind` and what the failure costs.
    public var registered: FailureKind { specificKind ?? code.kind }
    public var description: String { message }

    /// The usual reading of an HTTP status an API answered with.
    static func status(_ response: HTTPResponse, during step: String) -> ServiceError {
        let detail = "\(step) answered HTTP \(response.status): \(response.bodySnippet)"
        switch response.status {
        case 429:
            return ServiceError(.rateLimited, detail, retryAfterSeconds: RetryAfter.seconds(response))
        case 401, 403:
            return ServiceError(.authFailed, detail + " (check the service's credentials)")
        case 408:
            return ServiceError(.timeout, detail)
        case 500...599:
            return ServiceError(.serverError, detail, retryAfterSeconds: RetryAfter.seconds(response))
        default:
            return ServiceError(.clientError, detail)
        }
    }

    /// The task was cancelled (shutdown, a lease lost): not the job's fault, not counted.
    static func cancelled(during step: String) -> ServiceError {
        ServiceError(.cancelled, "cancelled during \(step)")
    }

    static func transport(_ error: any Error, during step: String) -> ServiceError {
        guard let error = error as? HTTPError else {
            return ServiceError(.network, "\(step) failed: \(error)")
        }
        let code: Code =
            switch error.code {
            case .timeout: .timeout
            case .responseTooLarge: .responseTooLarge
            case .cancelled: .cancelled
            case .slotMissed: .slotMissed
            case .destinationRefused: .destinationRefused
            // The service's certificate is not trusted (expired, renamed) or this machine's trust
            // store is: never the photo's fault. Tried again, and the breaker waits it out.
            case .tls: .tlsFailed
            default: error.isRetryable ? .network : .misconfigured
            }
        var failure = ServiceError(code, "\(step) failed: \(error.message)")
        failure.unreachable = error.code == .connectFailed || error.code == .tls
        return failure
    }
}

/// Reads how long a service asked us to wait: the `Retry-After` header (delta-seconds or an
/// HTTP date), else a message like Azure's "Try again in 12 seconds."
enum RetryAfter {
    static func seconds(_ response: HTTPResponse) -> Double? {
        if let value = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Double(value), seconds >= 0 { return min(seconds, 3600) }
            if let date = httpDate.date(from: value) { return min(max(date.timeIntervalSinceNow, 0), 3600) }
        }
        return fromMessage(String(decoding: response.body.prefix(2000), as: UTF8.self))
    }

    static func fromMessage(_ text: String) -> Double? {
        guard let range = text.range(of: "try again in ", options: .caseInsensitive) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber || $0 == "." }
        guard let seconds = Double(digits), seconds >= 0 else { return nil }
        return min(seconds, 3600)
    }

    /// Made per use: a rare path, and DateFormatter is not safe to share across threads.
    private static var httpDate: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }
}

/// The codes a ServiceError carries.
extension FailureCode where Owner == ServiceError {
    public static let rateLimited = Self(.http429)
    public static let serverError = Self(.http5xx)
    public static let clientError = Self(.http4xx)
    public static let network = Self(.network)
    /// The TLS handshake failed the certificate check (the service's certificate, or this
    /// machine's trust store).
    public static let tlsFailed = Self(.tlsFailed)
    public static let timeout = Self(.timeout)
    public static let uploadExpired = Self(.uploadUrlExpired)
    public static let uploadRejected = Self(.uploadRejected)
    /// A service handed out a URL that leads where discern does not send photos.
    public static let destinationRefused = Self(.uploadDestinationRefused)
    public static let analysisFailed = Self(.analysisFailed)
    public static let badResponse = Self(.badResponse)
    public static let unsupportedAction = Self(.unsupportedAction)
    public static let badParams = Self(.badParams)
    public static let authFailed = Self(.authFailed)
    /// The service understood the request and refused this input (a documented 4xx).
    public static let inputRejected = Self(.inputRejected)
    public static let rateLimiterUnavailable = Self(.rateLimiterUnavailable)
    public static let misconfigured = Self(.misconfigured)
    /// The service could not start the work at all (Image Discerner's one start per second):
    /// retried, and never counted against the job's attempts.
    public static let notStarted = Self(.notStarted)
    public static let responseTooLarge = Self(.responseTooLarge)
    /// The worker could not send within its rate-limit slots, again and again (`RateSlot`):
    /// its own load, not the job's fault; never counted against the job's attempts.
    public static let slotMissed = Self(.rateSlotMissed)
    public static let cancelled = Self(.cancelled)
    /// The service's spend cap is reached (discern.service_budgets): the job goes back to wait.
    public static let capReached = Self(.spendCapReached)
    /// The service answered in a form this release does not read (a newer version, a model it
    /// does not know): asking again would answer the same.
    public static let serviceIncompatible = Self(.serviceIncompatible)
    /// discern's own fault (a report it could not write): its message says what.
    public static let internalError = Self(.internalError)
}

/// A failed call's `error.type` in a trace is its kind, as in `jobs.error_kind`.
extension ServiceError: TracedError {
    public var errorType: String { kind }
}
