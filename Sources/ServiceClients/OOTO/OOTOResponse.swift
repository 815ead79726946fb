import AnalysisModel
import CurlHTTP
import ErrorCodes
import Foundation

/// Reads OOTO's answers, in the current nested shape and the older flat one.
enum OOTOResponse {
    /// Code 5 ("No faces found") is an answer about the photo: a result with outcome `no_face`,
    /// whatever the error status it came with (the reference client reads it so).
    static func noFace(_ response: HTTPResponse, step: String) throws(ServiceError) -> Analysis? {
        guard response.status != 200, let failure = ServiceFailure(response), failure.code == 5 else { return nil }
        return Analysis(
            outcome: "no_face", detailsJSON: JSONBody.details(["code": 5, "info": failure.info]),
            rawResponseJSON: String(decoding: response.body, as: UTF8.self))
    }

    /// A match is what the service says it is: a `templateId` in the search result. An
    /// optional `threshold` of one's own makes the rule stricter, never looser.
    static func identified(_ response: HTTPResponse, step: String, threshold: Double?) throws(ServiceError) -> Analysis {
        let (result, raw) = try success(response, step: step)
        // Nested: result.search.{templateId, similarity}; flat: result.{templateId, similarity}.
        let hit = result.object("search") ?? result
        let templateID = hit.string("templateId", maxLength: 256)
        let similarity = templateID == nil ? nil : hit.double("similarity").map { min(max($0, 0), 1) }
        let matched = templateID != nil && threshold.map { (similarity ?? 0) >= $0 } != false
        return Analysis(
            category: "face", confidence: similarity, outcome: matched ? "match" : "no_match",
            subjectID: matched ? templateID : nil,
            detailsJSON: JSONBody.details([
                "candidate_template_id": templateID, "similarity": similarity, "threshold": threshold,
                "box": result.object("box")?.fields, "liveness": checks(result, "liveness"), "deepfake": checks(result, "deepfake"),
                "transaction_id": UntrustedJSON.parse(response.body)?.string("transactionId")
            ]),
            rawResponseJSON: raw)
    }

    static func enrolled(_ response: HTTPResponse, step: String) throws(ServiceError) -> Analysis {
        let (result, raw) = try success(response, step: step)
        guard let templateID = result.object("enroll")?.string("templateId") ?? result.string("templateId") else {
            throw ServiceError(.badResponse, "\(step) answered 200 without a templateId: \(response.bodySnippet)")
        }
        return Analysis(
            category: "face", outcome: "enrolled", subjectID: templateID,
            detailsJSON: JSONBody.details([
                "quality": (result.object("quality") ?? result.object("face")?.object("quality"))?.fields,
                "liveness": checks(result, "liveness"), "deepfake": checks(result, "deepfake"),
                "transaction_id": UntrustedJSON.parse(response.body)?.string("transactionId")
            ]),
            rawResponseJSON: raw)
    }

    /// Any 2xx is a deletion, with a body or without one.
    static func deleted(_ response: HTTPResponse, templateID: String, step: String) throws(ServiceError) -> Analysis {
        let raw = String(decoding: response.body, as: UTF8.self)
        if (200...299).contains(response.status) {
            return Analysis(
                outcome: "deleted", subjectID: templateID,
                detailsJSON: JSONBody.details(["transaction_id": UntrustedJSON.parse(response.body)?.string("transactionId")]),
                rawResponseJSON: raw.isEmpty ? "{}" : raw)
        }
        // Deleting is idempotent for us: a retry after a lost answer finds the template gone.
        if response.status == 400, let failure = ServiceFailure(response),
            failure.info?.localizedCaseInsensitiveContains("template not found") == true
        {
            return Analysis(
                outcome: "not_found", subjectID: templateID,
                detailsJSON: JSONBody.details(["info": failure.info]), rawResponseJSON: raw)
        }
        throw failure(response, step: step)
    }

    /// The `result` object of a 200 answer, and the raw text.
    private static func success(_ response: HTTPResponse, step: String) throws(ServiceError) -> (UntrustedJSON, String) {
        guard response.status == 200 else { throw failure(response, step: step) }
        guard let top = UntrustedJSON.parse(response.body), let result = top.object("result") else {
            throw ServiceError(.badResponse, "\(step) answered 200 without a result object: \(response.bodySnippet)")
        }
        if result.string("status") == "error" { throw failure(response, step: step) }
        return (result, String(decoding: response.body, as: UTF8.self))
    }

    /// Liveness or deepfake scores: under `result.face` (flat shape) or `result` (nested).
    private static func checks(_ result: UntrustedJSON, _ name: String) -> [String: Any]? {
        (result.object("face")?.object(name) ?? result.object(name))?.fields
    }

    /// OOTO's documented error codes, classified.
    static func failure(_ response: HTTPResponse, step: String) -> ServiceError {
        // OOTO's error body can come with any error status; a 401/403 or 5xx without one is read
        // as usual.
        guard let failure = ServiceFailure(response), let code = failure.code,
            ![401, 403, 429].contains(response.status), response.status < 500
        else {
            return ServiceError.status(response, during: step)
        }
        let info = failure.info ?? "no detail"
        let (kind, advice): (FailureKind, String) =
            switch code {
            case 1: (.ootoEmptyPhoto, "the request carried no photo")
            case 2: (.ootoWrongMimeType, "OOTO takes JPEG or PNG only")
            case 3: (.ootoZeroBytePhoto, "the photo sent was empty")
            case 4: (.ootoUndecodable, "OOTO could not decode the photo")
            case 6: (.ootoMultipleFaces, "the photo shows more than one face; crop it to one person")
            case 9: (.ootoFaceTooSmall, "the face is too small to extract; faces need about 200x200 px")
            // Any other code: one kind (a dashboard label and a Prometheus label, whose values must
            // stay few), the code itself in the message.
            default: (.ootoRefused, "OOTO refused the request")
            }
        return ServiceError(.inputRejected, "\(step) answered code \(code) (\(info)): \(advice)", kind: kind)
    }

    /// `{"result": {"status": "error", "code": N, "info": "..."}}`.
    private struct ServiceFailure {
        let code: Int?
        let info: String?

        init?(_ response: HTTPResponse) {
            guard let result = UntrustedJSON.parse(response.body)?.object("result"), result.string("status") == "error" else { return nil }
            code = result.int("code")
            info = result.string("info")
        }
    }
}
