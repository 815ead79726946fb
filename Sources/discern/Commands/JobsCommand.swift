import ArgumentParser
import Foundation
import Postgres

struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "List jobs by state, batch, error kind or service, or show one job with its error history.",
        subcommands: [JobsList.self, JobsShow.self], defaultSubcommand: JobsList.self)
}

struct JobsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List jobs, newest first (the default of `discern jobs`).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only jobs in this state.")
    var state: JobStateChoice?

    @Option(help: "Only jobs of this batch.")
    var batch: String?

    @Option(help: "Only jobs whose last error is of this kind, e.g. discerner_timeout.")
    var kind: String?

    @Option(help: "Only jobs of this service.")
    var backend: BackendChoice?

    @Option(help: "How many jobs, 1-10000.")
    var limit: Int = 50

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
    }

    func run() async throws {
        let parameters: [(any PostgresEncodable)?] = [state?.rawValue, batch, kind, backend?.rawValue, limit]
        let query = """
            SELECT j.id, j.state, j.backend, j.action, b.name AS batch, j.image_path, j.attempts, j.max_attempts, j.priority,
                   j.error_kind, j.last_error, j.run_at, j.created_at, j.updated_at, j.finished_at,
                   to_char(j.updated_at, 'YYYY-MM-DD HH24:MI:SS') AS updated
            FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
            WHERE ($1::text IS NULL OR j.state = $1) AND ($2::text IS NULL OR b.name = $2)
              AND ($3::text IS NULL OR j.error_kind = $3) AND ($4::text IS NULL OR j.backend = $4)
            ORDER BY j.id DESC LIMIT $5
            """
        let database = Database(conninfo: self.database.conninfo)
        if format == .json {
            let document = try await database.withConnection { connection in
                try connection.query("SELECT coalesce(json_agg(x), '[]') AS doc FROM (\(query)) x", parameters).first?.string("doc") ?? "[]"
            }
            return try JSONOutput.print(document)
        }
        let rows = try await database.withConnection { try $0.query(query, parameters) }
        print(TextTable.render(
            headers: ["job", "state", "backend", "batch", "tries", "file", "error_kind", "updated"],
            rows: try rows.map { row in
                [try row.string("id"), try row.string("state"), try row.string("backend"), try row.optionalString("batch") ?? "-",
                 "\(try row.int("attempts"))/\(try row.int("max_attempts"))",
                 URL(fileURLWithPath: try row.string("image_path")).lastPathComponent,
                 try row.optionalString("error_kind") ?? "-", try row.string("updated")]
            }))
    }
}

struct JobsShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One job: its state, file, attempts, every error it met, and its result.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The job's id.")
    var id: Int64

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard id > 0 else { throw ValidationError("a job id is a positive whole number") }
    }

    func run() async throws {
        let id = self.id
        // Columns the reader role may read (docs/operations.md): no params, no raw answer.
        let document = try await Database(conninfo: database.conninfo).withConnection { connection in
            try connection.query("""
                SELECT json_build_object(
                    'id', j.id, 'state', j.state, 'backend', j.backend, 'action', j.action, 'batch', b.name,
                    'image_path', j.image_path, 'priority', j.priority, 'attempts', j.attempts, 'max_attempts', j.max_attempts,
                    'run_at', j.run_at, 'created_at', j.created_at, 'updated_at', j.updated_at, 'finished_at', j.finished_at,
                    'lease_owner', j.lease_owner, 'lease_expires_at', j.lease_expires_at,
                    'error_kind', j.error_kind, 'last_error', j.last_error, 'error_history', j.error_history,
                    'result', (SELECT json_build_object(
                        'outcome', r.outcome, 'subject_id', r.subject_id, 'category', r.category, 'subcategory', r.subcategory,
                        'operator', r.operator, 'fleet_id', r.fleet_id, 'license_plate', r.license_plate,
                        'confidence', r.confidence, 'sent_bytes', r.sent_bytes, 'original_bytes', r.original_bytes,
                        'analyze_ms', r.analyze_ms, 'created_at', r.created_at)
                        FROM discern.results r WHERE r.job_id = j.id)) AS doc
                FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id WHERE j.id = $1
                """, [id]).first?.string("doc")
        }
        guard let document else { throw ValidationError("there is no job \(id) (it may have been pruned; its result, if any, is kept)") }
        if format == .json { return try JSONOutput.print(document) }
        guard let job = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any] else { return }
        print(JobSheet.render(job))
    }
}

/// One job as `key: value` lines, its error history as a numbered list.
enum JobSheet {
    static func render(_ job: [String: Any]) -> String {
        func text(_ key: String) -> String {
            guard let value = job[key], !(value is NSNull) else { return "-" }
            return TerminalText.safe("\(value)", maxLength: 2000)
        }
        var lines = [
            "job \(text("id")): \(text("state"))  (\(text("backend")) \(text("action")), batch \(text("batch")))",
            "file:        \(text("image_path"))",
            "attempts:    \(text("attempts")) of \(text("max_attempts")), priority \(text("priority"))",
            "created:     \(text("created_at"))", "run at:      \(text("run_at"))", "updated:     \(text("updated_at"))",
            "finished:    \(text("finished_at"))",
        ]
        if text("lease_owner") != "-" { lines.append("lease:       \(text("lease_owner")) until \(text("lease_expires_at"))") }
        if text("error_kind") != "-" { lines.append("last error:  \(text("error_kind")): \(text("last_error"))") }
        let history = job["error_history"] as? [[String: Any]] ?? []
        if !history.isEmpty {
            lines.append("errors (\(history.count)):")
            for entry in history {
                let field = { (key: String) in entry[key].map { TerminalText.safe("\($0)", maxLength: 500) } ?? "-" }
                lines.append("  #\(field("attempt")) \(field("at"))  \(field("kind")): \(field("error"))")
            }
        }
        if let result = job["result"] as? [String: Any] {
            let fields = ["outcome", "subject_id", "category", "subcategory", "operator", "fleet_id", "license_plate", "confidence",
                          "original_bytes", "sent_bytes", "analyze_ms", "created_at"]
            lines.append("result:")
            for key in fields { if let value = result[key], !(value is NSNull) { lines.append("  \(key): \(TerminalText.safe("\(value)", maxLength: 500))") } }
        }
        return lines.joined(separator: "\n")
    }
}
