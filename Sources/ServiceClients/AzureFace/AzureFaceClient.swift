import AnalysisModel
import CurlHTTP
import Foundation
import Imaging

/// Azure Face v1.0 (docs/services.md, "Azure Face"): detect the faces of an image, then identify the largest
/// against a person group.
///
/// Actions: `identify` (also `analyze`, the jobs table's default: detect + identify; params `personGroupId` or `largePersonGroupId`
/// override the configured group), `detect` (faces only) and `delete` (a person and its persisted faces from a group: params
/// `personId` and the group; sends no file: an erasure's step, docs/operations.md "Erasing a person"). No face (`[]`) is a result.
/// Both calls count against the `azure-face` rate limit (20/min on the free tier).
public struct AzureFaceClient: AnalysisClient, ConfiguredClient {
    public let name = Services.azureFace.name
    let configuration: Configuration
    let caller: ServiceCaller
    let groupModels = AzureGroupModels()
    static let limitKey = Services.azureFace.rateLimitKeys[0]

    public func input(for action: String) -> InputHandling { action == "delete" ? .none : .image(.azureFace) }

    var base: String { "\(configuration.endpoint)/face/v1.0" }

    public func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis {
        guard ["identify", "detect", "analyze", "delete"].contains(request.action) else {
            throw request.unsupported(by: name, supported: Services.azureFace.actions)
        }
        let params = try request.params()
        var conversation = caller.conversation(request)
        if request.action == "delete" { return try await deletePerson(params, &conversation) }
        // Identify needs faceIds detected with the group's own model; detect alone uses the
        // configured one.
        var group: AzurePersonGroup?
        var model = configuration.recognitionModel
        if request.action != "detect" {
            let named = try personGroup(params)
            model = try await recognitionModel(of: named, &conversation)
            group = named
        }
        let faces = try await detect(upload, model: model, &conversation)
        var analysis: Analysis
        if faces.isEmpty {
            analysis = Analysis(
                category: "face", outcome: "no_face", detailsJSON: JSONBody.details(["faces": 0]),
                rawResponseJSON: "{\"detect\":[]}")
        } else if let group {
            analysis = try await identify(faces, group: group, params: params, &conversation)
        } else {
            analysis = Analysis(
                category: "face", outcome: "face_found",
                detailsJSON: JSONBody.details(["faces": faces.count, "face_rectangle": faces[0].rectangle]),
                rawResponseJSON: AzureFaceResponse.rawJSON(detect: faces, identify: nil))
        }
        analysis.apiCalls = conversation.calls
        // Identify compares faces detected with the group's model: the model is the answer's.
        // The settings this action used: identify's group, threshold and candidates only with it.
        let identifying: [String: Any?] =
            group.map {
                [
                    "person_group": ($0.isLarge ? "large:" : "") + $0.id, "max_candidates": configuration.maxCandidates,
                    "acceptance_threshold": Self.threshold(params, configuration)
                ]
            } ?? [:]
        analysis.provenance = Provenance(
            serviceURL: configuration.endpoint, model: model, modelVersion: "face/v1.0",
            details: ["action": request.action, "recognition_model": model, "detection_model": configuration.detectionModel].merging(identifying) {
                $1
            })
        return analysis
    }

    private func detect(_ upload: Upload, model: String, _ conversation: inout Conversation) async throws(ServiceError) -> [AzureFaceResponse.Face] {
        let step = "Azure Face detect"
        let query =
            "returnFaceId=true&recognitionModel=\(model)&detectionModel=\(configuration.detectionModel)"
            + "&returnRecognitionModel=false&faceIdTimeToLive=3600"
        let request = HTTPRequest(
            method: "POST", url: "\(base)/detect?\(query)",
            headers: [HTTPHeader("Content-Type", "application/octet-stream"), keyHeader],
            body: .bytes(upload.data), timeoutSeconds: configuration.requestTimeoutSeconds)
        return try await conversation.send(request, step: step, limitKey: Self.limitKey) { response throws(ServiceError) in
            try AzureFaceResponse.faces(response, step: step)
        }
    }

    /// The group named by the job's params, else the configured one.
    private func personGroup(_ params: UntrustedJSON) throws(ServiceError) -> AzurePersonGroup {
        if let large = params.string("largePersonGroupId", maxLength: 100) { return try AzurePersonGroup(id: large, isLarge: true) }
        if let group = params.string("personGroupId", maxLength: 100) { return try AzurePersonGroup(id: group, isLarge: false) }
        if let large = configuration.largePersonGroupID { return try AzurePersonGroup(id: large, isLarge: true) }
        if let group = configuration.personGroupID { return try AzurePersonGroup(id: group, isLarge: false) }
        throw ServiceError(
            .badParams, "Azure Face identify needs a person group: set params {\"personGroupId\": ...} on the job or DISCERN_AZURE_FACE_PERSON_GROUP")
    }

    private func identify(
        _ faces: [AzureFaceResponse.Face], group: AzurePersonGroup, params: UntrustedJSON,
        _ conversation: inout Conversation
    ) async throws(ServiceError) -> Analysis {
        let step = "Azure Face identify"
        let body: [String: Any] = [
            "faceIds": [faces[0].faceID], "maxNumOfCandidatesReturned": configuration.maxCandidates,
            group.bodyKey: group.id
        ]
        let request = HTTPRequest.json(
            url: "\(base)/identify", body: try JSONBody.encode(body), headers: [keyHeader],
            timeoutSeconds: configuration.requestTimeoutSeconds)
        let threshold = Self.threshold(params, configuration)
        return try await conversation.send(request, step: step, limitKey: Self.limitKey) { response throws(ServiceError) in
            try AzureFaceResponse.identified(response, faces: faces, threshold: threshold, step: step)
        }
    }

    /// Deletes a person (and its persisted faces) from its group. A person already gone (404
    /// PersonNotFound: a retry after a lost answer, or deleted by hand) is an outcome, not a failure.
    private func deletePerson(_ params: UntrustedJSON, _ conversation: inout Conversation) async throws(ServiceError) -> Analysis {
        let group = try personGroup(params)
        guard let person = params.string("personId", maxLength: 64),
            person.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" })
        else {
            throw ServiceError(.badParams, "an Azure Face delete job needs params {\"personId\": \"...\"} (a person's id) and its group")
        }
        let step = "Azure Face delete of a person"
        let request = HTTPRequest(
            method: "DELETE", url: "\(base)/\(group.path)/\(group.id)/persons/\(person.lowercased())", headers: [keyHeader],
            timeoutSeconds: configuration.requestTimeoutSeconds)
        var analysis = try await conversation.send(request, step: step, limitKey: Self.limitKey) { response throws(ServiceError) in
            try AzureFaceResponse.deleted(response, person: person, step: step)
        }
        analysis.apiCalls = conversation.calls
        analysis.provenance = Provenance(
            serviceURL: configuration.endpoint, model: nil, modelVersion: "face/v1.0",
            details: ["action": "delete", "person_group": (group.isLarge ? "large:" : "") + group.id])
        return analysis
    }

    /// The top candidate's confidence a match needs: the job's own, else the configured one.
    static func threshold(_ params: UntrustedJSON, _ configuration: Configuration) -> Double {
        params.fraction("threshold") ?? configuration.acceptanceThreshold
    }

    var keyHeader: HTTPHeader { HTTPHeader("Ocp-Apim-Subscription-Key", configuration.subscriptionKey.value) }
}
