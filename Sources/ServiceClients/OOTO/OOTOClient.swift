import AnalysisModel
import CurlHTTP
import Foundation
import Imaging

/// OOTO Face API (docs/services.md, "OOTO Face"): 1:N identify, enrol and delete face templates.
///
/// Actions: `identify` (also `analyze`, the jobs table's default), `enroll` (alias `add`; params `templateId` optional) and `delete`
/// (params `templateId`; no file is sent). Params `check_liveness` / `check_deepfake` override
/// the configured defaults. "No face" (code 5) is a result, not a failure.
public struct OOTOClient: AnalysisClient, ConfiguredClient {
    public let name = Services.ooto.name
    let configuration: Configuration
    let caller: ServiceCaller

    public func input(for action: String) -> InputHandling {
        action == "delete" ? .none : .image(.ooto)
    }

    public func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis {
        let params = try request.params()
        var conversation = caller.conversation(request)
        var analysis: Analysis
        switch request.action {
        case "identify", "analyze":  // `analyze`, the jobs table's default, means the main action
            analysis = try await sendPhoto(upload, to: "identify", params: params, &conversation)
        case "enroll", "add":
            analysis = try await sendPhoto(upload, to: "add", params: params, &conversation)
        case "delete":
            analysis = try await delete(params: params, &conversation)
        default:
            throw request.unsupported(by: name, supported: Services.ooto.actions)
        }
        analysis.apiCalls = conversation.calls
        // Liveness and deepfake checks ride on the photo's calls; a delete sends none.
        let checks: [String: Any?] =
            request.action == "delete"
            ? [:]
            : [
                "check_liveness": params.bool("check_liveness") ?? configuration.checkLiveness,
                "check_deepfake": params.bool("check_deepfake") ?? configuration.checkDeepfake
            ]
        analysis.provenance = Provenance(
            serviceURL: configuration.baseURL, modelVersion: "v1.0", details: ["action": request.action].merging(checks) { $1 })
        return analysis
    }

    private var authHeaders: [HTTPHeader] {
        [HTTPHeader("APP-ID", configuration.appID.value), HTTPHeader("APP-KEY", configuration.appKey.value)]
    }

    private func sendPhoto(
        _ upload: Upload, to endpoint: String, params: UntrustedJSON,
        _ conversation: inout Conversation
    ) async throws(ServiceError) -> Analysis {
        let step = "OOTO \(endpoint)"
        let liveness = params.bool("check_liveness") ?? configuration.checkLiveness
        let deepfake = params.bool("check_deepfake") ?? configuration.checkDeepfake
        var parts = [MultipartPart(name: "photo", data: upload.data, filename: "photo.\(upload.fileExtension)", contentType: upload.contentType)]
        let templateID = params.string("templateId")
        if endpoint == "add", let templateID { parts.append(MultipartPart(name: "templateId", value: templateID)) }
        let request = HTTPRequest(
            method: "POST", url: "\(configuration.baseURL)/\(endpoint)?check_liveness=\(liveness)&check_deepfake=\(deepfake)",
            headers: authHeaders, body: .multipart(parts), timeoutSeconds: configuration.requestTimeoutSeconds)
        // An enrolment without an id of ours could enrol twice if retried after a timeout.
        let idempotent = endpoint == "identify" || templateID != nil
        let threshold = configuration.matchThreshold
        return try await conversation.send(request, step: step, limitKey: name, idempotent: idempotent) { response throws(ServiceError) in
            if let noFace = try OOTOResponse.noFace(response, step: step) { return noFace }
            return endpoint == "add"
                ? try OOTOResponse.enrolled(response, step: step)
                : try OOTOResponse.identified(response, step: step, threshold: threshold)
        }
    }

    private func delete(params: UntrustedJSON, _ conversation: inout Conversation) async throws(ServiceError) -> Analysis {
        guard let templateID = params.string("templateId") else {
            throw ServiceError(.badParams, "an OOTO delete job needs params {\"templateId\": \"...\"}")
        }
        let step = "OOTO delete of template \(templateID)"
        let request = HTTPRequest.json(
            url: "\(configuration.baseURL)/delete", body: try JSONBody.encode(["templateId": templateID]),
            headers: authHeaders, timeoutSeconds: configuration.requestTimeoutSeconds)
        return try await conversation.send(request, step: step, limitKey: name) { response throws(ServiceError) in
            try OOTOResponse.deleted(response, templateID: templateID, step: step)
        }
    }
}
