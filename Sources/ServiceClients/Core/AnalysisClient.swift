import AnalysisModel
import Foundation
import Imaging

/// One remote analysis service.
///
/// `analyze` returns the service's answer mapped onto the result columns, with the raw JSON
/// kept. It throws `ServiceError`, which says whether another attempt can help; it never
/// returns a partial answer.
public protocol AnalysisClient: Sendable {
    /// The name jobs use in `jobs.backend` (the column keeps its name).
    var name: String { get }
    /// What the service takes for an action, so the worker can prepare the job's file to fit it.
    func input(for action: String) -> InputHandling

    func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis
}

/// How a job's file becomes what a service receives.
public enum InputHandling: Sendable {
    /// Images are sniffed, checked and re-encoded if needed to fit the policy.
    case image(ImagePolicy)
    /// Videos are checked and sent as they are (Unissey).
    case video(VideoPolicy)
    /// The action sends no file (deleting an OOTO template): the job's path is not read.
    case none
}

/// Watches one job's calls for the worker: whether the service answered each, and whether a
/// failed call may be tried again within the attempt (not once the service is known to be down,
/// nor after several jobs' calls in a row went unanswered, nor for a probe).
public protocol CallWatch: Sendable {
    /// A call ended: `answered` false when no answer came, or a 5xx.
    func called(answered: Bool)
    func mayRetry() -> Bool
}

/// What a client needs to know about the job besides the file.
public struct AnalysisRequest: Sendable {
    public let action: String
    /// The job's `params` as JSON text (templateId, personGroupId, ...).
    public let paramsJSON: String
    /// Sent as `X-Correlation-ID` on every call of the job, retries included, so one job's calls
    /// can be found together in the service's logs (and the simulator can check Retry-After).
    public let correlationID: String
    /// Told of every call's fate, and asked before a failed call is tried again within the
    /// attempt (the worker's breaker); nil: every call may be retried as the policy says.
    public let watch: (any CallWatch)?

    public init(action: String, paramsJSON: String = "{}", correlationID: String = "", watch: (any CallWatch)? = nil) {
        self.action = action
        self.paramsJSON = paramsJSON
        self.correlationID = correlationID
        self.watch = watch
    }

    /// The params as an object; a job with unreadable params fails before any call is made.
    func params() throws(ServiceError) -> UntrustedJSON {
        guard let object = UntrustedJSON.parse(Data(paramsJSON.utf8)) else {
            throw ServiceError(.badParams, "the job's params are not a JSON object: \(paramsJSON.prefix(200))")
        }
        return object
    }

    func unsupported(by service: String, supported: [String]) -> ServiceError {
        ServiceError(
            .unsupportedAction,
            "\(service) does \(supported.map { "'\($0)'" }.joined(separator: ", ")), not '\(action)'")
    }
}
