import Foundation

/// Results as the JSON array `QueueSQL.complete` expands with `jsonb_to_recordset`: one
/// parameter for any number of results, typed by the statement.
///
/// Written by hand rather than with JSONSerialization: at thousands of completions a second the
/// Foundation encoder took most of a core (measured with bench/queue).
enum ResultRecords {
    static func json(_ results: [(jobID: Int, result: JobResult)]) -> String {
        var out = "["
        out.reserveCapacity(results.count * 600)
        for (index, entry) in results.enumerated() {
            if index > 0 { out += "," }
            let analysis = entry.result.analysis, prep = entry.result.preparation
            var record = JSONRecord()
            record.add("job_id", entry.jobID)
            record.add("category", analysis.category)
            record.add("subcategory", analysis.subcategory)
            record.add("operator", analysis.serviceOperator)
            record.add("fleet_id", analysis.fleetID)
            record.add("license_plate", analysis.licensePlate)
            record.add("confidence", analysis.confidence)
            record.add("text_identifiers", analysis.textIdentifiers)
            record.add("description", analysis.description)
            record.add("outcome", analysis.outcome)
            record.add("subject_id", analysis.subjectID)
            record.addRaw("details", analysis.detailsJSON.first == "{" ? analysis.detailsJSON : "{}")
            record.add("api_calls", analysis.apiCalls)
            record.addRaw("raw_response", rawJSON(analysis.rawResponseJSON))
            record.add("original_bytes", prep.originalBytes)
            record.add("original_width", prep.originalWidth)
            record.add("original_height", prep.originalHeight)
            record.add("original_format", prep.originalFormat)
            record.add("sent_bytes", prep.sentBytes)
            record.add("sent_width", prep.sentWidth)
            record.add("sent_height", prep.sentHeight)
            record.add("sent_format", prep.sentFormat)
            record.add("jpeg_quality", prep.jpegQuality)
            record.add("encode_count", prep.encodeCount)
            record.add("passed_through", prep.passedThrough)
            record.add("prepare_ms", prep.milliseconds)
            record.add("analyze_ms", entry.result.analyzeMilliseconds)
            out += record.text + "}"
        }
        return out + "]"
    }

    /// The service's answer goes in as it came when it is a JSON object or array (backends only
    /// store answers they parsed); anything else is kept as a JSON string rather than lost.
    private static func rawJSON(_ text: String) -> String {
        let first = text.first { !$0.isWhitespace }
        return first == "{" || first == "[" ? text : JSONRecord.quote(text)
    }
}

/// One JSON object, built field by field.
struct JSONRecord {
    private(set) var text = "{"
    private var empty = true

    mutating func addRaw(_ key: String, _ json: String) {
        if !empty { text += "," }
        empty = false
        text += "\"\(key)\":" + json
    }

    mutating func add(_ key: String, _ value: String?) { addRaw(key, value.map(Self.quote) ?? "null") }
    mutating func add(_ key: String, _ value: Int?) { addRaw(key, value.map(String.init) ?? "null") }
    mutating func add(_ key: String, _ value: Bool) { addRaw(key, value ? "true" : "false") }
    mutating func add(_ key: String, _ value: [String]) { addRaw(key, "[" + value.map(Self.quote).joined(separator: ",") + "]") }

    mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return addRaw(key, "null") }
        addRaw(key, String(value))
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
