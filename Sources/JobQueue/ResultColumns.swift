import Foundation
import Postgres

/// Results as the typed arrays `QueueSQL.complete` expands with `unnest`: one array per
/// column, sent in PostgreSQL's binary format, so the server reads a batch of results
/// without parsing it. Each column's name, SQL type and values are declared together, so
/// the statement and its parameters cannot drift apart.
enum ResultColumns {
    typealias Entry = (jobID: Int, result: JobResult)

    struct Column: Sendable {
        let name: String
        let sqlType: String
        let values: @Sendable (_ jobIDs: [Int], _ results: [JobResult]) -> any PostgresEncodable
    }

    /// In parameter order: `$2` is the first.
    static let all: [Column] = [
        Column(name: "job_id", sqlType: "bigint") { jobIDs, _ in BinaryArray(jobIDs) },
        text("category") { $0.analysis.category },
        text("subcategory") { $0.analysis.subcategory },
        text("operator") { $0.analysis.serviceOperator },
        text("fleet_id") { $0.analysis.fleetID },
        text("license_plate") { $0.analysis.licensePlate },
        double("confidence") { $0.analysis.confidence },
        // Rows' arrays differ in length, which a two-dimensional array cannot hold: each row's
        // goes as an array literal, cast back in the statement.
        text("text_identifiers") { $0.analysis.textIdentifiers.map(clean).postgresText },
        text("description") { $0.analysis.description },
        text("outcome") { $0.analysis.outcome },
        text("subject_id") { $0.analysis.subjectID },
        json("details") { $0.analysis.detailsJSON.first == "{" ? $0.analysis.detailsJSON : "{}" },
        smallint("api_calls") { $0.analysis.apiCalls },
        json("raw_response") { rawJSON($0.analysis.rawResponseJSON) },
        bigint("original_bytes") { $0.preparation.originalBytes },
        integer("original_width") { $0.preparation.originalWidth },
        integer("original_height") { $0.preparation.originalHeight },
        text("original_format") { $0.preparation.originalFormat },
        bigint("sent_bytes") { $0.preparation.sentBytes },
        integer("sent_width") { $0.preparation.sentWidth },
        integer("sent_height") { $0.preparation.sentHeight },
        text("sent_format") { $0.preparation.sentFormat },
        smallint("jpeg_quality") { $0.preparation.jpegQuality },
        smallint("encode_count") { $0.preparation.encodeCount },
        Column(name: "passed_through", sqlType: "boolean") { _, results in BinaryArray(results.map(\.preparation.passedThrough)) },
        double("prepare_ms") { $0.preparation.milliseconds },
        double("analyze_ms") { $0.analyzeMilliseconds },
    ]

    static let names = all.map(\.name)
    static let sqlTypes = all.map(\.sqlType)

    static func parameters(_ entries: [Entry]) -> [any PostgresEncodable] {
        let jobIDs = entries.map(\.jobID), results = entries.map(\.result)
        return all.map { $0.values(jobIDs, results) }
    }

    // MARK: Column kinds

    private static func text(_ name: String, _ value: @escaping @Sendable (JobResult) -> String?) -> Column {
        Column(name: name, sqlType: "text") { _, results in BinaryArray(results.map { value($0).map(clean) }) }
    }

    private static func json(_ name: String, _ value: @escaping @Sendable (JobResult) -> String) -> Column {
        Column(name: name, sqlType: "jsonb") { _, results in BinaryArray(results.map { JSONText(value($0)) }) }
    }

    private static func bigint(_ name: String, _ value: @escaping @Sendable (JobResult) -> Int) -> Column {
        Column(name: name, sqlType: "bigint") { _, results in BinaryArray(results.map(value)) }
    }

    private static func integer(_ name: String, _ value: @escaping @Sendable (JobResult) -> Int) -> Column {
        Column(name: name, sqlType: "integer") { _, results in BinaryArray(results.map { Int32(clamping: value($0)) }) }
    }

    private static func smallint(_ name: String, _ value: @escaping @Sendable (JobResult) -> Int?) -> Column {
        Column(name: name, sqlType: "smallint") { _, results in BinaryArray(results.map { value($0).map { Int16(clamping: $0) } }) }
    }

    /// NaN and infinity are stored as NULL: no dashboard can use them.
    private static func double(_ name: String, _ value: @escaping @Sendable (JobResult) -> Double?) -> Column {
        Column(name: name, sqlType: "double precision") { _, results in
            BinaryArray(results.map { value($0).flatMap { $0.isFinite ? $0 : nil } })
        }
    }

    /// PostgreSQL text cannot hold NUL; a service answering one must not make the row unwritable.
    private static func clean(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\0", with: "") : text
    }

    /// The service's answer goes in as it came when it is a JSON object or array (backends only
    /// store answers they parsed); anything else is kept as a JSON string rather than lost.
    static func rawJSON(_ text: String) -> String {
        let first = text.first { !$0.isWhitespace }
        guard first != "{" && first != "[" else { return text }
        // A plain String always serialises; NUL is dropped first, since jsonb refuses \u0000.
        let quoted = try? JSONSerialization.data(withJSONObject: clean(text), options: .fragmentsAllowed)
        return quoted.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
