import Foundation

/// Results as the JSON array `QueueSQL.complete` expands with `jsonb_to_recordset`: one
/// parameter for any number of results, typed by the statement.
enum ResultRecords {
    static func json(_ results: [(jobID: Int, result: JobResult)]) throws -> String {
        let records: [[String: Any]] = results.map { jobID, result in
            let analysis = result.analysis, prep = result.preparation
            var record: [String: Any] = [
                "job_id": jobID, "text_identifiers": analysis.textIdentifiers,
                "raw_response": rawJSON(analysis.rawResponseJSON),
                "original_bytes": prep.originalBytes, "original_width": prep.originalWidth,
                "original_height": prep.originalHeight, "original_format": prep.originalFormat,
                "sent_bytes": prep.sentBytes, "sent_width": prep.sentWidth, "sent_height": prep.sentHeight,
                "sent_format": prep.sentFormat, "encode_count": prep.encodeCount, "passed_through": prep.passedThrough,
                "prepare_ms": prep.milliseconds, "analyze_ms": result.analyzeMilliseconds,
            ]
            let optional: [String: Any?] = [
                "category": analysis.category, "subcategory": analysis.subcategory, "operator": analysis.serviceOperator,
                "fleet_id": analysis.fleetID, "license_plate": analysis.licensePlate, "confidence": analysis.confidence,
                "description": analysis.description, "jpeg_quality": prep.jpegQuality,
            ]
            for (key, value) in optional { if let value { record[key] = value } }
            return record
        }
        let data = try JSONSerialization.data(withJSONObject: records)
        return String(decoding: data, as: UTF8.self)
    }

    /// The service's answer as JSON; text that is not JSON is kept, wrapped, rather than lost.
    private static func rawJSON(_ text: String) -> Any {
        if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) { return object }
        return ["unparsed": text]
    }
}
