import Imaging
import JobQueue

/// One remote analysis service.
///
/// `analyze` returns the service's answer mapped onto the common result columns, with the raw
/// JSON kept. It throws `BackendError`, which says whether another attempt can help; it never
/// returns a partial answer.
public protocol AnalysisBackend: Sendable {
    /// The name jobs use in `jobs.backend`.
    var name: String { get }
    /// What images this service accepts; the worker prepares images to fit it.
    var imagePolicy: ImagePolicy { get }

    func analyze(_ image: PreparedImage, request: AnalysisRequest) async throws(BackendError) -> JobResult.Analysis
}

/// What a backend needs to know about the job besides the image.
public struct AnalysisRequest: Sendable {
    public let action: String
    /// The job's `params` as JSON text (templateId, personGroupId, ...).
    public let paramsJSON: String

    public init(action: String, paramsJSON: String = "{}") {
        self.action = action
        self.paramsJSON = paramsJSON
    }
}
