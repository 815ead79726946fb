import ArgumentParser
import Foundation
import Postgres

struct ResultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "results", abstract: "Print the latest results as a table.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "How many results, newest first.")
    var limit: Int = 20

    @Option(help: "Only this service's results.")
    var backend: String?

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
    }

    func run() async throws {
        let limit = self.limit, backend = self.backend
        let rows = try await Database(conninfo: database.conninfo).withConnection { connection in
            try connection.query("""
                SELECT job_id, image_path, backend, outcome, subject_id, category, operator, fleet_id, license_plate,
                       to_char(confidence, 'FM0.000') AS confidence, original_bytes, sent_bytes, passed_through
                FROM discern.results WHERE $2::text IS NULL OR backend = $2 ORDER BY id DESC LIMIT $1
                """, [limit, backend])
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
