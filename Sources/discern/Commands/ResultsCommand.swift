import ArgumentParser
import Foundation
import Postgres

struct ResultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "results", abstract: "Print the latest results as a table.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "How many results, newest first.")
    var limit: Int = 20

    @Option(help: "Only this service's results.")
    var backend: BackendChoice?

    @Option(help: "Only results of this batch.")
    var batch: String?

    @Option(help: "table or json (json adds every column a reader may see, identifiers and details included).")
    var format: OutputFormat = .table

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
    }

    func run() async throws {
        let parameters: [(any PostgresEncodable)?] = [limit, backend?.rawValue, batch]
        let filter = """
            FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
            WHERE ($2::text IS NULL OR r.backend = $2) AND ($3::text IS NULL OR b.name = $3) ORDER BY r.id DESC LIMIT $1
            """
        let database = Database(conninfo: self.database.conninfo)
        if format == .json {
            // The reader role's columns (no raw answer): scripts may run as discern_reader.
            let document = try await database.withConnection { connection in
                try connection.query("""
                    SELECT coalesce(json_agg(x), '[]') AS doc FROM (
                        SELECT r.id, r.job_id, b.name AS batch, r.image_path, r.backend, r.action, r.outcome, r.subject_id,
                               r.category, r.subcategory, r.operator, r.fleet_id, r.license_plate, r.confidence,
                               r.text_identifiers, r.description, r.details, r.original_bytes, r.original_width, r.original_height,
                               r.original_format, r.sent_bytes, r.sent_width, r.sent_height, r.sent_format, r.passed_through,
                               r.prepare_ms, r.analyze_ms, r.created_at
                        \(filter)) x
                    """, parameters).first?.string("doc") ?? "[]"
            }
            return try JSONOutput.print(document)
        }
        let rows = try await database.withConnection { connection in
            try connection.query("""
                SELECT r.job_id, r.image_path, r.backend, r.outcome, r.subject_id, r.category, r.operator, r.fleet_id, r.license_plate,
                       to_char(r.confidence, 'FM0.000') AS confidence, r.original_bytes, r.sent_bytes, r.passed_through
                \(filter)
                """, parameters)
        }
        let table = try rows.map { row -> [String] in
            [
                try row.optionalString("job_id") ?? "-",
                URL(fileURLWithPath: try row.string("image_path")).lastPathComponent,
                try row.string("backend"), try row.optionalString("outcome") ?? "-", try row.optionalString("subject_id") ?? "-",
                try row.optionalString("category") ?? "-", try row.optionalString("operator") ?? "-",
                try row.optionalString("fleet_id") ?? "-", try row.optionalString("license_plate") ?? "-",
                try row.optionalString("confidence") ?? "-",
                Self.kilobytes(try row.int("original_bytes")), Self.kilobytes(try row.int("sent_bytes")),
                try row.bool("passed_through") ? "as is" : "prepared",
            ]
        }
        print(TextTable.render(headers: ["job", "file", "backend", "outcome", "subject", "category", "operator", "fleet_id", "license_plate", "confidence",
                                         "original", "sent", "image"], rows: table))
    }

    static func kilobytes(_ bytes: Int) -> String { "\((bytes + 512) / 1024) KB" }
}
