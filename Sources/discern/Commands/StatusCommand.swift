import ArgumentParser
import Foundation
import QueueReads

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Jobs by state, recent batches, throughput and the most common errors.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Redraw every --interval seconds until interrupted, like watch(1).")
    var watch = false

    @Option(help: "Seconds between redraws with --watch, 0.5-3600.")
    var interval: Double = 2

    @Option(help: "table or json (the console's /api/overview: states, throughput, workers, rate limits, dead jobs by kind).")
    var format: OutputFormat = .table

    func validate() throws {
        guard interval.isFinite, (0.5...3600).contains(interval) else { throw ValidationError("--interval must be from 0.5 to 3600 seconds") }
        guard !(watch && format == .json) else { throw ValidationError("--watch redraws a table; with --format json, call status repeatedly") }
    }

    func run() async throws {
        let reader = try await database.reader()
        if format == .json { return try JSONOutput.printView(try await reader.overview()) }
        guard watch else { return print(try await Self.report(reader)) }
        while !Task.isCancelled {
            let text: String
            do {
                text = try await Self.report(reader)
            } catch {
                text = "cannot read the queue: \(error)"
            }
            let stamp = Date().formatted(date: .omitted, time: .standard)
            // Home, clear screen, then the report: one steady picture, no scrolling.
            print("\u{1B}[H\u{1B}[2Jdiscern status, every \(interval) s — \(stamp) (Ctrl-C to stop)\n\n" + text)
            try await Task.sleep(for: .seconds(max(0.2, interval)))
        }
    }

    /// The console's overview and its five newest batches, as text.
    static func report(_ reader: QueueReader) async throws -> String {
        StatusText.render(try await reader.overview(), batches: try await reader.batches(limit: 5))
    }
}

enum StatusText {
    static func render(_ overview: Overview, batches: [BatchSummary]) -> String {
        var sections = [
            TextTable.render(headers: ["service", "state", "jobs"], rows: overview.states.map { [$0.service, $0.state, "\($0.jobs)"] })
                + "\n(succeeded and cancelled: the last 24 hours)",
            "succeeded in the last full minute: \(overview.succeededLastMinute), in the last hour: \(overview.succeededLastHour)"
        ]
        if !batches.isEmpty {
            sections.append(
                "recent batches:\n"
                    + TextTable.render(
                        headers: ["batch", "jobs", "succeeded", "dead", "running", "waiting", "done %"],
                        rows: batches.map { batch in
                            [
                                batch.name, "\(batch.jobs)", "\(batch.succeeded)", "\(batch.dead)", "\(batch.running)", "\(batch.available)",
                                String(format: "%.1f", batch.percentDone)
                            ]
                        }))
        }
        if !overview.deadByKind.isEmpty {
            sections.append(
                "dead jobs by error kind:\n"
                    + TextTable.render(
                        headers: ["service", "error_kind", "jobs", "example"],
                        rows: overview.deadByKind.prefix(10).map { kind in
                            [kind.service, kind.errorKind ?? "-", "\(kind.jobs)", String((kind.example ?? "").prefix(100))]
                        }))
        }
        sections.append(
            overview.workers.isEmpty
                ? "live workers: none"
                : "live workers:\n"
                    + TextTable.render(
                        headers: ["worker", "services", "version", "heartbeat", "started"],
                        rows: overview.workers.map { worker in
                            [
                                worker.id, worker.services.joined(separator: ","), worker.version, ViewText.time(worker.lastHeartbeatAt),
                                ViewText.time(worker.startedAt)
                            ]
                        }))
        for paused in overview.paused {
            sections.append(
                "paused: \(paused.service) by \(paused.pausedBy) since \(ViewText.time(paused.pausedAt))"
                    + (paused.reason.map { " (\($0))" } ?? "") + "; no worker claims its jobs until `discern resume \(paused.service)`")
        }
        for down in overview.unavailable {
            sections.append("unavailable: " + ServiceOutageText.line(down) + "; `discern resume \(down.service)` if you know it is back")
        }
        for service in overview.unserved {
            sections.append("warning: \(service.waiting) \(service.service) job(s) wait and no live worker serves that service")
        }
        return sections.joined(separator: "\n\n")
    }
}

/// A service found down, in one line: "discerner unavailable since 02:13:04 (network: ...), 3
/// probe(s) failed, next in 40 s, 12000 job(s) waiting".
enum ServiceOutageText {
    static func line(_ down: Overview.Unavailable) -> String {
        let next =
            down.probing
            ? "a probe under way"
            : down.nextProbeSeconds < 1
                ? "next probe due now"
                : "next in \(String(format: "%.0f", down.nextProbeSeconds)) s"
        return "\(down.service) since \(ViewText.time(down.since)) (\(down.errorKind): \(String(down.lastError.prefix(160)))), "
            + "\(down.probesFailed) probe(s) failed, \(next), \(down.waiting) job(s) waiting"
    }
}
