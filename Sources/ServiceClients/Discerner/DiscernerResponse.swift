import AnalysisModel
import Foundation

/// Maps an Image Discerner `/analyze` 200 answer onto a result: every entity, and the result
/// row's common columns from the primary one (docs/services.md, "Image Discerner").
///
/// The envelope is `{"success": true, "analysis_result": {"statusCode": 200, "body": {...}}}`.
/// The workflow's own failures also arrive as HTTP 200 (`success: false`, a `statusCode` other
/// than 200 in `analysis_result`, or `analysis_complete: false`): none of them is a result.
enum DiscernerResponse {
    static func map(_ data: Data) throws(ServiceError) -> Analysis {
        guard let top = UntrustedJSON.parse(data) else {
            throw bad("a body that is not a JSON object", data)
        }
        guard top.bool("success") != false else {
            throw ServiceError(.analysisFailed, "Image Discerner analyze reported failure: \(top.string("error") ?? snippet(data))")
        }
        guard let result = top.object("analysis_result") else { throw bad("no analysis_result", data) }
        if let status = result.fields["statusCode"], UntrustedJSON.number(status) != 200 {
            // The aggregation step's own failure: {"statusCode": 500, "body": {"error": ...}}.
            let reason = result.object("body")?.string("error") ?? snippet(data)
            throw ServiceError(
                .analysisFailed, "Image Discerner's analysis workflow answered statusCode \(UntrustedJSON.bounded("\(status)", 20)): \(reason)")
        }
        guard let body = result.object("body") else { throw bad("no analysis_result.body", data) }
        guard body.fields["analysis_complete"] as? Bool != false else {
            throw ServiceError(.analysisFailed, "Image Discerner answered analysis_complete: false: \(body.string("error") ?? snippet(data))")
        }
        let version = formatVersion(body)
        let entities: [Entity]
        switch version {
        case 3:
            guard let list = body.fields["entities"] as? [Any] else { throw bad("a format 3.0 answer without an entities list", data) }
            entities = DiscernerEntities.formatThree(list.compactMap(UntrustedJSON.init))
        case 2:
            guard let subject = body.object("primary_subject") else { throw bad("a format 2.0 answer without primary_subject", data) }
            entities = [DiscernerEntities.formatTwo(subject)]
        default:
            throw ServiceError(
                .serviceIncompatible, "Image Discerner answered response_format_version \(version), which this version of discern cannot read")
        }
        var analysis = analysis(
            entities, formatTwoSubject: version == 2 ? body.object("primary_subject") : nil, version: version,
            execution: top.string("execution_name"), raw: String(decoding: data, as: UTF8.self))
        let metadata = body.object("processing_metadata")
        analysis.provenance = Provenance(
            model: metadata?.string("classification_provider", maxLength: 200),
            modelVersion: metadata?.string("response_format_version", maxLength: 16) ?? "\(version).0",
            detailsJSON: JSONBody.details([
                "classification_provider": metadata?.string("classification_provider", maxLength: 200),
                "text_provider": metadata?.string("text_provider", maxLength: 200)
            ]))
        return analysis
    }

    /// The major version: `processing_metadata.response_format_version` ("3.0"), else the shape.
    private static func formatVersion(_ body: UntrustedJSON) -> Int {
        if let text = body.object("processing_metadata")?.string("response_format_version", maxLength: 16) {
            return UntrustedJSON.number(text).flatMap { Int(exactly: $0.rounded(.down)) } ?? -1
        }
        return body.fields["entities"] != nil ? 3 : 2
    }

    private static func analysis(
        _ entities: [Entity], formatTwoSubject: UntrustedJSON?, version: Int, execution: String?,
        raw: String
    ) -> Analysis {
        let primary = entities.first(where: \.isPrimary)
        let details = formatTwoSubject?.object("additional_details")
        let identified = entities.contains { $0.category != "unknown" }
        return Analysis(
            category: primary?.category ?? "unknown", subcategory: primary?.subtype ?? (primary == nil ? "unidentified" : nil),
            serviceOperator: primary?.serviceOperator, fleetID: primary?.fleetID, licensePlate: primary?.licensePlate,
            confidence: primary?.confidence ?? 0,
            textIdentifiers: details?.strings("text_identifiers") ?? primary?.identifiers ?? [],
            description: details?.string("description", maxLength: 4096),
            outcome: identified ? "identified" : "unidentified",
            detailsJSON: JSONBody.details([
                "response_format_version": "\(version).0", "entity_count": entities.count, "execution_name": execution
            ]),
            rawResponseJSON: raw, entities: entities)
    }

    private static func bad(_ what: String, _ data: Data) -> ServiceError {
        ServiceError(.badResponse, "Image Discerner analyze answered 200 with \(what): \(snippet(data))")
    }

    private static func snippet(_ data: Data) -> String { JSONBody.snippet(data) }
}
