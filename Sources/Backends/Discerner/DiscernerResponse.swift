import Foundation
import JobQueue

/// Maps an Image Discerner `/analyze` answer onto the result columns.
enum DiscernerResponse {
    static func map(_ data: Data) throws(BackendError) -> JobResult.Analysis {
        guard let raw = String(data: data, encoding: .utf8), let top = JSONObject.parse(data) else {
            throw BackendError(.badResponse, "Image Discerner analyze answered 200 with a body that is not a JSON object: \(snippet(data))", retryable: true)
        }
        guard top.bool("success") != false else {
            throw BackendError(.analysisFailed, "Image Discerner analyze reported failure: \(top.string("error") ?? snippet(data))", retryable: true)
        }
        guard let result = top.object("analysis_result"), let body = result.object("body") else {
            throw BackendError(.badResponse, "Image Discerner analyze answered 200 without analysis_result.body: \(snippet(data))", retryable: true)
        }
        if let status = result.double("statusCode"), status != 200 {
            throw BackendError(.analysisFailed, "Image Discerner analysis_result has statusCode \(Int(status)): \(snippet(data))", retryable: true)
        }
        let version = body.object("processing_metadata")?.string("response_format_version") ?? "2.0"
        switch version {
        case "2.0", "2":
            return try formatTwo(body, raw: raw)
        default:
            throw BackendError(.badResponse, "Image Discerner answered response_format_version \(version), which this version of discern cannot read", retryable: false)
        }
    }

    private static func formatTwo(_ body: JSONObject, raw: String) throws(BackendError) -> JobResult.Analysis {
        guard let subject = body.object("primary_subject") else {
            throw BackendError(.badResponse, "Image Discerner format 2.0 answer has no primary_subject", retryable: true)
        }
        let details = subject.object("additional_details")
        var confidence = subject.double("confidence")
        if let value = confidence, !(0...1).contains(value) { confidence = nil }
        return JobResult.Analysis(
            category: subject.string("category"), subcategory: subject.string("subcategory"),
            serviceOperator: subject.string("operator"), fleetID: subject.string("fleet_id"),
            licensePlate: details?.string("license_plate"), confidence: confidence,
            textIdentifiers: details?.strings("text_identifiers") ?? [], description: details?.string("description"),
            rawResponseJSON: raw)
    }

    private static func snippet(_ data: Data) -> String {
        String(decoding: data.prefix(200), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
    }
}
