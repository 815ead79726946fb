import ArgumentParser
import Foundation
import JobQueue
import Postgres

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Jobs by state, recent batches, throughput and the most common errors.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Redraw every --interval seconds until interrupted, like watch(1).")
    var watch = false

    @Option(help: "Seconds between redraws with --watch.")
    var interval: Double = 2

    func validate() throws {
        guard interval.isFinite, (0.5...3600).contains(interval) else { throw ValidationError("--interval must be from 0.5 to 3600 seconds") }
    }

    func run() async throws {
        let database = Database(conninfo: self.database.conninfo)
        guard watch else { return print(try await Self.report(database)) }
        while !Task.isCancelled {
            let text: String
            do {
                text = try await Self.report(database)
            } catch {
                text = "cannot read the queue: \(error)"
            }
            let stamp = Date().formatted(date: .omitted, time: .standard)
            // Home, clear screen, then the report: one steady picture, no scrolling.
            print("\u{1B}[H\u{1B}[2Jdiscern status, every \(interval) s — \(stamp) (Ctrl-C to stop)\n\n" + text)
            try await Task.sleep(for: .seconds(max(0.2, interval)))
        }
    }

    static func report(_ database: Database) async throws -> String {
        let report = try await database.withConnection { connection in
            StatusReport(
                states: try connection.query("SELECT backend, state, jobs FROM discern.queue_depth ORDER BY backend, state"),
                batches: try connection.query("""
                    SELECT name, jobs, succeeded, dead, running, available, percent_done
                    FROM discern.batch_progress ORDER BY created_at DESC LIMIT 5
                    """),
                throughput: try connection.query("""
                    SELECT count(*) FILTER (WHERE finished_at > now() - interval '1 minute') AS last_minute,
                           count(*) FILTER (WHERE finished_at > now() - interval '1 hour') AS last_hour
                    FROM discern.jobs WHERE finished_at > now() - interval '1 hour' AND state = 'succeeded'
                    """),
                errors: try connection.query("""
                    SELECT backend, error_kind, jobs, example FROM discern.errors_by_kind ORDER BY jobs DESC LIMIT 10
                    """))
        }
        return try report.render()
    }
}

private struct StatusReport {
    let states: Rows
    let batches: Rows
    let throughput: Rows
    let errors: Rows

    func render() throws -> String {
        var sections = [TextTable.render(headers: ["backend", "state", "jobs"], rows: try states.map {
            [try $0.string("backend"), try $0.string("state"), try $0.string("jobs")]
        })]
        if let row = throughput.first {
            sections.append("succeeded in the last minute: \(try row.int("last_minute")), in the last hour: \(try row.int("last_hour"))")
        }
        if batches.count > 0 {
            sections.append("recent batches:\n" + TextTable.render(
                headers: ["batch", "jobs", "succeeded", "dead", "running", "waiting", "done %"],
                rows: try batches.map { row in
                    try ["name", "jobs", "succeeded", "dead", "running", "available", "percent_done"].map { try row.string($0) }
                }))
        }
        if errors.count > 0 {
            sections.append("dead jobs by error kind:\n" + TextTable.render(
                headers: ["backend", "error_kind", "jobs", "example"],
                rows: try errors.map { row in
                    [try row.string("backend"), try row.optionalString("error_kind") ?? "-", try row.string("jobs"),
                     String((try row.optionalString("example") ?? "").prefix(100))]
                }))
        }
        return sections.joined(separator: "\n\n")
    }
}
