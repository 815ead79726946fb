import AnalysisModel
import CurlHTTP
import ErrorCodes
import Foundation
import Imaging

/// The landmark predictor (docs/services.md, "Landmark predictor"): one multipart call, the top 3 labels back.
///
/// Action `predict` (alias `analyze`). The top label fills `subject_id` and `subcategory`, its
/// display name `description`; all three go to `details.predictions`; `outcome` is `unsure` when the top confidence is under the
/// threshold (0.55 by default; params `unsure_below` overrides it per job).
public struct LandmarkClient: AnalysisClient, ConfiguredClient {
    public let name = Services.landmark.name
    let configuration: Configuration
    let caller: ServiceCaller

    public func input(for action: String) -> InputHandling { .image(.landmark) }

    public func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis {
        guard request.action == "predict" || request.action == "analyze" else {
            throw request.unsupported(by: name, supported: Services.landmark.actions)
        }
        let params = try request.params()
        let unsureBelow = params.fraction("unsure_below") ?? configuration.unsureBelow
        let step = "Landmark predict"
        var conversation = caller.conversation(request)
        let extensionName = upload.fileExtension == "png" ? "png" : "jpg"
        let call = HTTPRequest(
            method: "POST", url: "\(configuration.baseURL)/api/prediction/predict",
            body: .multipart([
                MultipartPart(name: "imageFile", data: upload.data, filename: "image.\(extensionName)", contentType: upload.contentType)
            ]),
            timeoutSeconds: configuration.requestTimeoutSeconds)
        var analysis = try await conversation.send(call, step: step, limitKey: name) { response throws(ServiceError) in
            try Self.read(response, unsureBelow: unsureBelow, step: step)
        }
        analysis.apiCalls = conversation.calls
        analysis.provenance = Provenance(serviceURL: configuration.baseURL, details: ["unsure_below": unsureBelow])
        return analysis
    }

    static func read(_ response: HTTPResponse, unsureBelow: Double, step: String) throws(ServiceError) -> Analysis {
        guard response.status == 200 else { throw failure(response, step: step) }
        guard let top = UntrustedJSON.parse(response.body), top.fields["predictions"] is [Any] else {
            throw ServiceError(.badResponse, "\(step) answered 200 without a predictions list: \(response.bodySnippet)")
        }
        let predictions = top.array("predictions")
            .compactMap { item -> (label: String, confidence: Double, rank: Int)? in
                guard let label = item.string("label", maxLength: 128), let confidence = item.fraction("confidence") else { return nil }
                return (label, confidence, item.int("rank").flatMap { (1...1000).contains($0) ? $0 : nil } ?? 1000)
            }
            .sorted { ($0.rank, -$0.confidence) < ($1.rank, -$1.confidence) }
            .prefix(3)
        guard let best = predictions.first else {
            throw ServiceError(.badResponse, "\(step) answered 200 with no usable prediction: \(response.bodySnippet)")
        }
        return Analysis(
            category: "landmark", subcategory: best.label, confidence: best.confidence,
            textIdentifiers: predictions.map(\.label), description: LandmarkLabels.displayName(best.label),
            outcome: best.confidence < unsureBelow ? "unsure" : "confident", subjectID: best.label,
            detailsJSON: JSONBody.details([
                "predictions": predictions.map {
                    [
                        "label": $0.label, "display_name": LandmarkLabels.displayName($0.label), "confidence": $0.confidence,
                        "rank": $0.rank
                    ] as [String: Any]
                },
                "inference_ms": top.double("inferenceTimeMs"), "unsure_below": unsureBelow
            ]),
            rawResponseJSON: String(decoding: response.body, as: UTF8.self))
    }

    static func failure(_ response: HTTPResponse, step: String) -> ServiceError {
        let message = UntrustedJSON.parse(response.body)?.string("error") ?? response.bodySnippet
        let details = UntrustedJSON.parse(response.body)?.string("details")
        let detail = "\(step) answered HTTP \(response.status): \(message)\(details.map { " (\($0))" } ?? "")"
        guard response.status == 400 else {
            if response.status == 500 { return ServiceError(.analysisFailed, detail) }
            return ServiceError.status(response, during: step)
        }
        let kind: FailureKind =
            switch message {
            case _ where message.localizedCaseInsensitiveContains("No image file"): .landmarkNoImage
            case _ where message.localizedCaseInsensitiveContains("Invalid file type"): .landmarkInvalidFileType
            case _ where message.localizedCaseInsensitiveContains("exceeds"): .landmarkFileTooLarge
            default: .landmarkRejected
            }
        return ServiceError(.inputRejected, detail, kind: kind)
    }
}
