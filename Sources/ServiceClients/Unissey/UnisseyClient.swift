import AnalysisModel
import CurlHTTP
import ErrorCodes
import Foundation
import Imaging

/// Unissey video-selfie liveness (docs/services.md, "Unissey"). The video is never resized: a size and
/// container check, then it goes as it is.
///
/// Action `analyze`. The capture SDK's metadata string comes from params `selfie_metadata`
/// and is sent under the configured field name (`selfie-metadata`; one source says `metadata`).
/// Injection-attack detection (params `injection_attack_detection: true`) only works with that
/// metadata (seed 003 §4.6.3): a job asking for it without metadata is refused before any call.
/// Every result records in `details.metadata_sent` whether metadata went with the video.
/// Only fragments of the answer are public: `is_genuine` is required, the trust score
/// (`details.injection.selfie.trust_score`) is kept when present.
public struct UnisseyClient: AnalysisClient, ConfiguredClient {
    public let name = Services.unissey.name
    let configuration: Configuration
    let caller: ServiceCaller

    public func input(for action: String) -> InputHandling { .video(configuration.videoPolicy) }

    public func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis {
        guard request.action == "analyze" else { throw request.unsupported(by: name, supported: Services.unissey.actions) }
        let params = try request.params()
        let step = "Unissey analyze"
        var parts = [
            MultipartPart(name: "selfie", data: upload.data, filename: "selfie.\(upload.fileExtension)", contentType: upload.contentType),
            MultipartPart(name: "processings", value: "liveness"),
            MultipartPart(name: "selfie-detection-criteria", value: "single"),
            MultipartPart(name: "gdpr-consent", value: "true")
        ]
        let metadata = params.string("selfie_metadata", maxLength: 1 << 20) ?? params.string("metadata", maxLength: 1 << 20)
        let wantsIAD = params.bool("injection_attack_detection") ?? params.bool("iad") ?? false
        if wantsIAD && metadata == nil {
            throw ServiceError(
                .badParams,
                "the job asks for injection-attack detection but carries no SDK metadata: put the capture SDK's string in params {\"selfie_metadata\": ...} (IAD cannot work without it)",
                kind: .unisseyIadWithoutMetadata)
        }
        if let metadata { parts.append(MultipartPart(name: configuration.metadataField, value: metadata)) }
        let call = HTTPRequest(
            method: "POST", url: "\(configuration.baseURL)/api/v3/analyze",
            headers: [HTTPHeader("Authorization", configuration.apiKey.value)],
            body: .multipart(parts), timeoutSeconds: configuration.requestTimeoutSeconds)
        var conversation = caller.conversation(request)
        let sent = metadata != nil
        var analysis = try await conversation.send(call, step: step, limitKey: name) { response throws(ServiceError) in
            try Self.read(response, step: step, metadataSent: sent, iadRequested: wantsIAD)
        }
        analysis.apiCalls = conversation.calls
        analysis.provenance = Provenance(
            serviceURL: configuration.baseURL, modelVersion: "v3",
            details: [
                "processings": "liveness", "selfie_detection_criteria": "single", "metadata_sent": sent,
                "injection_attack_detection": wantsIAD
            ])
        return analysis
    }

    static func read(_ response: HTTPResponse, step: String, metadataSent: Bool, iadRequested: Bool) throws(ServiceError) -> Analysis {
        guard response.status == 200 else {
            let message = UntrustedJSON.parse(response.body).flatMap { $0.string("message") ?? $0.string("error") ?? $0.string("detail") }
            let detail = "\(step) answered HTTP \(response.status): \(message ?? response.bodySnippet)"
            switch response.status {
            case 400, 422: throw ServiceError(.inputRejected, detail, kind: .unisseyRejected)
            case 413: throw ServiceError(.inputRejected, detail + " (the video is too large)", kind: .unisseyTooLarge)
            default: throw ServiceError.status(response, during: step)
            }
        }
        guard let top = UntrustedJSON.parse(response.body), let genuine = top.bool("is_genuine") else {
            throw ServiceError(.badResponse, "\(step) answered 200 without is_genuine: \(response.bodySnippet)")
        }
        let trust = top.object("details")?.object("injection")?.object("selfie")?.fraction("trust_score")
        return Analysis(
            category: "liveness", confidence: trust,
            outcome: genuine ? "genuine" : "not_genuine",
            detailsJSON: JSONBody.details([
                "is_genuine": genuine, "trust_score": trust, "metadata_sent": metadataSent,
                "iad_requested": iadRequested
            ]),
            rawResponseJSON: String(decoding: response.body, as: UTF8.self))
    }
}
