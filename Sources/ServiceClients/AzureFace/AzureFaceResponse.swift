import AnalysisModel
import CurlHTTP
import ErrorCodes
import Foundation

/// Reads Azure Face answers and its `{"error": {"code", "message"}}` failures.
enum AzureFaceResponse {
    struct Face {
        let faceID: String
        let rectangle: [String: Any]
        let raw: Any
    }

    static func faces(_ response: HTTPResponse, step: String) throws(ServiceError) -> [Face] {
        guard response.status == 200 else { throw failure(response, step: step) }
        guard let list = (try? JSONSerialization.jsonObject(with: response.body)) as? [Any] else {
            throw ServiceError(.badResponse, "\(step) answered 200 with a body that is not a JSON array: \(response.bodySnippet)")
        }
        return try list.map { item throws(ServiceError) in
            guard let face = UntrustedJSON(item), let id = face.string("faceId") else {
                throw ServiceError(.badResponse, "\(step) answered a face without a faceId: \(response.bodySnippet)")
            }
            return Face(faceID: id, rectangle: face.object("faceRectangle")?.fields ?? [:], raw: item)
        }
    }

    static func identified(_ response: HTTPResponse, faces: [Face], threshold: Double, step: String) throws(ServiceError) -> Analysis {
        guard response.status == 200 else { throw failure(response, step: step) }
        guard let list = (try? JSONSerialization.jsonObject(with: response.body)) as? [Any] else {
            throw ServiceError(.badResponse, "\(step) answered 200 with a body that is not a JSON array: \(response.bodySnippet)")
        }
        let entry = list.compactMap { UntrustedJSON($0) }.first { $0.string("faceId") == faces[0].faceID } ?? list.first.flatMap { UntrustedJSON($0) }
        let candidates = (entry?.array("candidates") ?? [])
            .compactMap { candidate -> (String, Double)? in
                guard let person = candidate.string("personId"), let confidence = candidate.double("confidence") else { return nil }
                return (person, min(max(confidence, 0), 1))
            }
            .sorted { $0.1 > $1.1 }
        let top = candidates.first
        let matched = top.map { $0.1 > threshold } ?? false
        return Analysis(
            category: "face", confidence: top?.1, outcome: matched ? "match" : "no_match", subjectID: matched ? top?.0 : nil,
            detailsJSON: JSONBody.details([
                "faces": faces.count, "face_rectangle": faces[0].rectangle, "threshold": threshold,
                "candidates": candidates.map { ["personId": $0.0, "confidence": $0.1] }
            ]),
            rawResponseJSON: rawJSON(detect: faces, identify: try? JSONSerialization.jsonObject(with: response.body)))
    }

    /// Both answers of the job, as one JSON object.
    static func rawJSON(detect: [Face], identify: Any?) -> String {
        var object: [String: Any] = ["detect": detect.map(\.raw)]
        if let identify { object["identify"] = identify }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A person deleted (200, no body), or already gone (404 PersonNotFound): either way the
    /// service holds it no more.
    static func deleted(_ response: HTTPResponse, person: String, step: String) throws(ServiceError) -> Analysis {
        let raw = String(decoding: response.body, as: UTF8.self)
        if (200...299).contains(response.status) {
            return Analysis(category: "face", outcome: "deleted", subjectID: person, rawResponseJSON: raw.isEmpty ? "{}" : raw)
        }
        if response.status == 404, UntrustedJSON.parse(response.body)?.object("error")?.string("code") == "PersonNotFound" {
            return Analysis(category: "face", outcome: "not_found", subjectID: person, rawResponseJSON: raw)
        }
        throw failure(response, step: step)
    }

    /// Azure's documented error codes, classified.
    static func failure(_ response: HTTPResponse, step: String) -> ServiceError {
        let error = UntrustedJSON.parse(response.body)?.object("error")
        let code = error?.string("code") ?? "\(response.status)"
        let message = error?.string("message") ?? response.bodySnippet
        let detail = "\(step) answered HTTP \(response.status) \(code): \(message)"
        switch (response.status, code) {
        case (429, _):
            return ServiceError(.rateLimited, detail, retryAfterSeconds: RetryAfter.seconds(response))
        case (409, "PersonGroupTrainingNotFinished"):
            return ServiceError(
                .inputRejected, detail + " (training is running; the job retries)",
                retryAfterSeconds: 30, kind: .azureTrainingNotFinished)
        case (400, "FaceNotFound"):
            // The faceId expired between detect and identify: detecting again helps.
            return ServiceError(.inputRejected, detail, kind: .azureFaceNotFound)
        case (400, "PersonGroupNotTrained"):
            return ServiceError(
                .inputRejected, detail + " (train the person group, then retry the job with discern.retry)", kind: .azurePersonGroupNotTrained)
        case (400, "PersonGroupNotFound"), (404, "PersonGroupNotFound"):
            return ServiceError(.inputRejected, detail + " (check the job's personGroupId)", kind: .azurePersonGroupNotFound)
        case (400, "InvalidImageSize"):
            return ServiceError(.inputRejected, detail + " (Azure takes 1 KB to 6 MB)", kind: .azureInvalidImageSize)
        case (400, "InvalidImage"):
            return ServiceError(.inputRejected, detail, kind: .azureInvalidImage)
        case (400, _):
            return ServiceError(.inputRejected, detail, kind: .azureBadArgument)
        case (403, "UnsupportedFeature"):
            return ServiceError(.authFailed, detail + " (the subscription does not include this feature)", kind: .azureUnsupportedFeature)
        default:
            return ServiceError.status(response, during: step)
        }
    }
}
