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
        case "3.0", "3":
            return try formatThree(body, raw: raw)
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
        let category = subject.string("category")
        return JobResult.Analysis(
            category: category, subcategory: subject.string("subcategory"),
            serviceOperator: subject.string("operator"), fleetID: subject.string("fleet_id"),
            licensePlate: details?.string("license_plate"), confidence: confidence,
            textIdentifiers: details?.strings("text_identifiers") ?? [], description: details?.string("description"),
            outcome: outcome(category: category, serviceOperator: subject.string("operator")),
            detailsJSON: JSONBody.details(["response_format_version": "2.0"]),
            rawResponseJSON: raw)
    }

    /// Format 3.0: a list of entities instead of one primary subject. The most confident entity
    /// fills the common columns; all of them stay in `details` and in the raw answer.
    /// `identifiers` is read as an object (`{"fleet_id": ..}`), a list of strings, or a list of
    /// `{type, value}` pairs, since the published fragments do not pin it down.
    private static func formatThree(_ body: JSONObject, raw: String) throws(BackendError) -> JobResult.Analysis {
        guard body.fields["entities"] is [Any] else {
            throw BackendError(.badResponse, "Image Discerner format 3.0 answer has no entities list", retryable: true)
        }
        let entities = body.array("entities")
        let summaries: [[String: Any]] = entities.map { entity in
            ["type": entity.string("type") ?? "unknown", "operator": entity.string("operator") ?? NSNull(),
             "confidence": entity.double("confidence") ?? NSNull()]
        }
        guard let primary = entities.max(by: { ($0.double("confidence") ?? 0) < ($1.double("confidence") ?? 0) }) else {
            return JobResult.Analysis(category: "unknown", subcategory: "unidentified", confidence: 0, outcome: "unidentified",
                                      detailsJSON: JSONBody.details(["response_format_version": "3.0", "entities": summaries]),
                                      rawResponseJSON: raw)
        }
        let identifiers = Identifiers(primary.fields["identifiers"])
        let properties = primary.object("properties")
        var confidence = primary.double("confidence")
        if let value = confidence, !(0...1).contains(value) { confidence = nil }
        let category = primary.string("type")
        return JobResult.Analysis(
            category: category, subcategory: properties?.string("subcategory") ?? properties?.string("subtype"),
            serviceOperator: primary.string("operator"),
            fleetID: identifiers.named("fleet_id"), licensePlate: identifiers.named("license_plate"), confidence: confidence,
            textIdentifiers: identifiers.texts, description: properties?.string("description"),
            outcome: outcome(category: category, serviceOperator: primary.string("operator")),
            detailsJSON: JSONBody.details(["response_format_version": "3.0", "entities": summaries]),
            rawResponseJSON: raw)
    }

    private static func outcome(category: String?, serviceOperator: String?) -> String {
        guard let category, category != "unknown" else { return serviceOperator == nil ? "unidentified" : "identified" }
        return "identified"
    }

    /// The identifiers of a format 3.0 entity, in whichever shape they came.
    private struct Identifiers {
        var named: [String: String] = [:]
        var texts: [String] = []

        init(_ value: Any?) {
            if let object = JSONObject(value) {
                for key in object.fields.keys.sorted() {
                    if let text = object.string(key) { named[key] = text; texts.append(text) }
                    texts += object.strings(key)
                }
            } else if let list = value as? [Any] {
                for item in list {
                    if let text = item as? String { texts.append(text) }
                    if let pair = JSONObject(item), let value = pair.string("value") {
                        texts.append(value)
                        if let type = pair.string("type") { named[type] = value }
                    }
                }
            }
        }

        func named(_ key: String) -> String? { named[key] ?? named[key.replacingOccurrences(of: "_", with: "")] }
    }

    private static func snippet(_ data: Data) -> String {
        String(decoding: data.prefix(200), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
    }
}
