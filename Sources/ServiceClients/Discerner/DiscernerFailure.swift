import CurlHTTP
import ErrorCodes
import Foundation

/// Image Discerner's `/analyze` failures, classified (docs/services.md, "Image Discerner", the service's
/// `src/lambdas/api_handler.py`).
enum DiscernerFailure {
    static func classify(_ response: HTTPResponse, step: String) -> ServiceError {
        let object = UntrustedJSON.parse(response.body)
        let error = object?.string("error", maxLength: 1000) ?? ""
        switch response.status {
        case 500 where error.contains("ExecutionAlreadyExists"):
            // Workflows are named analysis-YYYYMMDD-HHMMSS: another start in the same second,
            // from any client, took the name. Nothing happened to the job.
            return ServiceError(
                .notStarted,
                "\(step): the service started another analysis in the same second (ExecutionAlreadyExists); tried again in the next free slot",
                retryAfterSeconds: 1, kind: .discernerStartCollision)
        case 500 where error.hasPrefix("Step Functions execution"):
            let cause = object?.string("cause", maxLength: 1000) ?? error
            if visionRefused(cause) {
                return ServiceError(
                    .inputRejected,
                    "\(step): the vision service refused the image: \(cause) (it must stay under 10,485,760 bytes once base64-encoded; see DISCERN_DISCERNER_MAX_BYTES)",
                    kind: .discernerImageRejected)
            }
            return ServiceError(.analysisFailed, "\(step): the service's analysis workflow failed: \(cause)")
        case 504:
            return ServiceError(.timeout, "\(step) timed out on the service side (HTTP 504): \(response.bodySnippet)")
        default:
            return ServiceError.status(response, during: step)
        }
    }

    /// The workflow's cause when Google Vision answered 400: the request (the image, base64 in
    /// JSON) was over its 10 MiB limit, or the image data was bad. Retrying cannot help.
    private static func visionRefused(_ cause: String) -> Bool {
        ["400 Client Error", "Bad image data", "exceeds the limit", "Request payload size exceeds"].contains {
            cause.localizedCaseInsensitiveContains($0)
        }
    }
}
