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

    @Option(help: "Seconds between redraws with --watch, 0.5-3600.")
    var interval: Double = 2

    @Option(help: "table or json (one document: states, throughput, batches, dead jobs by kind, workers).")
    var format: OutputFormat = .table

    func validate() throws {
        guard interval.isFinite, (0.5...3600).contains(interval) else { throw ValidationError("--interval must be from 0.5 to 3600 seconds") }
        guard !(watch && format == .json) else { throw ValidationError("--watch redraws a table; with --format json, call status repeatedly") }
    }

    func run() async throws {
        let database = Database(conninfo: self.database.conninfo)
        if format == .json { return try JSONOutput.print(try await Self.document(database)) }
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

    /// The same facts as the table, built by PostgreSQL as one JSON document.
    static func document(_ database: Database) async throws -> String {
        try await database.withConnection { connection in
            try connection.reading { try $0.query("""
                SELECT json_build_object(
                    'states', (SELECT coalesce(json_agg(x ORDER BY x.backend, x.state), '[]')
                               FROM (SELECT backend, state, jobs FROM discern.queue_depth) x),
                    'succeeded_last_minute', (SELECT count(*) FROM discern.jobs
                                              WHERE state = 'succeeded' AND finished_at > now() - interval '1 minute'),
                    'succeeded_last_hour', (SELECT count(*) FROM discern.jobs
                                            WHERE state = 'succeeded' AND finished_at > now() - interval '1 hour'),
                    'batches', (SELECT coalesce(json_agg(x), '[]') FROM (
                                    SELECT name, jobs, succeeded, dead, running, available, percent_done, created_at
                                    FROM discern.batch_progress ORDER BY created_at DESC LIMIT 5) x),
                    'dead_by_kind', (SELECT coalesce(json_agg(x), '[]') FROM (
                                    SELECT backend, error_kind, jobs, example FROM discern.errors_by_kind ORDER BY jobs DESC LIMIT 10) x),
                    'live_workers', (SELECT coalesce(json_agg(x), '[]') FROM (
                                    SELECT id, backends, version, started_at, last_heartbeat_at FROM discern.live_workers ORDER BY started_at) x),
                    'unserved_backends', (SELECT coalesce(json_agg(x), '[]') FROM (
                                    SELECT backend, waiting FROM discern.unserved_backends ORDER BY backend) x)
                ) AS doc
                """).first?.string("doc") ?? "{}" }
        }
    }

    static func report(_ database: Database) async throws -> String {
        let report = try await database.withConnection { connection in try connection.reading { connection in
            StatusReport(
                states: try QueueStatus.depth(connection),
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
                    """),
                workers: try connection.query("""
                    SELECT id, array_to_string(backends, ',') AS backends, version,
                           round(extract(epoch FROM now() - last_heartbeat_at))::int AS seen_seconds_ago,
                           round(extract(epoch FROM now() - started_at) / 60)::int AS minutes_up
                    FROM discern.live_workers ORDER BY started_at
                    """),
                unserved: try connection.query("SELECT backend, waiting FROM discern.unserved_backends ORDER BY backend"))
        } }
        return try report.render()
    }
}

private struct StatusReport {
    let states: [QueueStatus.Depth]
    let batches: Rows
    let throughput: Rows
    let errors: Rows
    let workers: Rows
    let unserved: Rows

    func render() throws -> String {
        var sections = [TextTable.render(headers: ["backend", "state", "jobs"], rows: states.map { [$0.backend, $0.state, "\($0.jobs)"] })]
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
        sections.append(workers.count == 0 ? "live workers: none" : "live workers:\n" + TextTable.render(
            headers: ["worker", "backends", "version", "heartbeat", "up"],
            rows: try workers.map { row in
                [try row.string("id"), try row.string("backends"), try row.string("version"),
                 "\(try row.int("seen_seconds_ago")) s ago", "\(try row.int("minutes_up")) min"]
            }))
        for row in unserved {
            sections.append("warning: \(try row.int("waiting")) \(try row.string("backend")) job(s) wait and no live worker serves that backend")
        }
        return sections.joined(separator: "\n\n")
    }
}
