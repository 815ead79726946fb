import ArgumentParser
import Foundation
import JobQueue
import Postgres
import SQLSchema

struct ReanalyseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reanalyse",
        abstract:
            "Analyse stored photos again: those whose current answer from a service matches a selection, after a forecast of the calls, cost and time.",
        discussion: """
            The jobs go into the batch reanalysis:NAME at a background priority (30000): they run when nothing else of the \
            service waits, under its rate limits and spend cap. Old answers stay; the new ones are added beside them. The \
            same --name run again adds only what it did not. --where takes model (or provider), model_version (or version), \
            host, release and category; any other field is matched against the result's provenance. Examples: \
            discern reanalyse --service discerner --where provider=old --batch requal --dry-run; \
            discern reanalyse --service discerner --since 2026-09-01 --before 2026-10-01 --name september
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("The service whose answers are selected and asked again.", valueName: "service"))
    var service: ServiceChoice

    @Option(help: "Names the re-analysis (its batch is reanalysis:NAME). Default: the time now, UTC (2026-11-29T0612).")
    var name: String?

    @Option(help: "Only answers to this action (analyze, identify, ...).")
    var action: String?

    @Option(help: "Only photos with an answer in this batch.")
    var batch: String?

    @Option(help: "Only photos answered on or after this day (YYYY-MM-DD, UTC) or time (ISO 8601).")
    var since: String?

    @Option(help: "Only photos answered before this day (YYYY-MM-DD, UTC) or time (ISO 8601).")
    var before: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("FIELD=VALUE the current answer must have; repeatable.", valueName: "field=value"))
    var conditions: [String] = []

    @Option(help: "Only answers with at least this confidence (0-1).")
    var minConfidence: Double?

    @Option(help: "Only answers with at most this confidence (0-1).")
    var maxConfidence: Double?

    @Option(help: "At most this many photos (the first by path).")
    var atMost: Int?

    @Option(help: "The jobs' priority: 30000 and above is the background band, which waits behind every other job.")
    var priority: Int = QueueConstants.backgroundPriority

    @Flag(help: "Print the forecast only; enqueue nothing.")
    var dryRun = false

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        if let atMost, atMost < 1 { throw ValidationError("--at-most must be at least 1") }
        guard (0...Int(Int16.max)).contains(priority) else { throw ValidationError("--priority must be from 0 to 32767") }
        for (flag, value) in [("--min-confidence", minConfidence), ("--max-confidence", maxConfidence)] {
            if let value, !(0...1).contains(value) { throw ValidationError("\(flag) must be from 0 to 1") }
        }
        _ = try selection()
    }

    func run() async throws {
        let selection = try selection(), dryRun = self.dryRun, by = PauseCommand.operator
        let forecast = try await Database(conninfo: database.conninfo).withConnection { connection in
            try Reanalysis.start(selection, on: connection, by: by, dryRun: dryRun)
        }
        if format == .json { return try JSONOutput.printView(forecast) }
        print(ReanalysisText.render(forecast))
    }

    func selection() throws -> Reanalysis.Selection {
        var selection = Reanalysis.Selection(name: name ?? Self.defaultName(), service: service.rawValue)
        selection.action = action
        selection.batch = batch
        selection.since = try since.map { try Self.time($0, flag: "--since") }
        selection.before = try before.map { try Self.time($0, flag: "--before") }
        selection.confidenceMin = minConfidence
        selection.confidenceMax = maxConfidence
        selection.atMost = atMost
        selection.priority = priority
        for condition in conditions {
            guard let equals = condition.firstIndex(of: "="), equals != condition.startIndex else {
                throw ValidationError("--where takes FIELD=VALUE, not \(condition)")
            }
            let field = String(condition[..<equals]), value = String(condition[condition.index(after: equals)...])
            switch field {
            case "model", "provider": selection.model = value
            case "model_version", "version": selection.modelVersion = value
            case "host", "service_host": selection.serviceHost = value
            case "release", "discern_version": selection.discernVersion = value
            case "category": selection.category = value
            default: selection.provenance[field] = value
            }
        }
        return selection
    }

    static func defaultName() -> String {
        Date.now.formatted(.iso8601.year().month().day().dateTimeSeparator(.standard).time(includingFractionalSeconds: false))
            .replacingOccurrences(of: ":", with: "").prefix(15).description
    }

    /// A day (midnight UTC) or an ISO 8601 time.
    static func time(_ text: String, flag: String) throws -> Date {
        if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, let day = try? Date("\(text)T00:00:00Z", strategy: .iso8601) { return day }
        if let time = try? Date(text, strategy: .iso8601) { return time }
        throw ValidationError("\(flag) takes a day (YYYY-MM-DD) or an ISO 8601 time (2026-11-25T06:00:00Z), not \(text)")
    }
}

/// The forecast as a person reads it.
enum ReanalysisText {
    static func render(_ forecast: Reanalysis.Forecast) -> String {
        var lines = [
            "re-analysis \(forecast.name) (batch \(forecast.batch)): \(forecast.selected) photo(s) selected, "
                + (forecast.started ? "\(forecast.enqueued) enqueued" : "\(forecast.enqueued) would be enqueued")
                + (forecast.selected > forecast.enqueued ? " (the rest are queued or answered under this name already)" : "")
        ]
        guard forecast.enqueued > 0 else { return lines.joined(separator: "\n") }
        let perJob =
            forecast.callsPerJob == nil
            ? "one a job: nothing measured yet"
            : String(format: "%.2f call(s) a job, %.2f attempt(s)", forecast.callsPerJob ?? 1, forecast.attemptsPerJob ?? 1)
        lines.append(
            "forecast: \(forecast.calls) call(s) (\(perJob))"
                + (forecast.cost.map { String(format: ", cost %.2f", $0) } ?? ", no price set (discern.service_budgets)"))
        let pace = forecast.perMinute.map { String(format: "%.1f jobs/min", $0) } ?? "no pace"
        let finish =
            forecast.finishLate.map { "done \(ViewText.time(forecast.finishEarly)) - \(ViewText.time($0))" }
            ?? "no finish forecast (\(forecast.constraint ?? "nothing moves the service"))"
        lines.append("time: after \(forecast.ahead) job(s) ahead of it, at \(pace) (\(forecast.constraint ?? "-")): \(finish)")
        if let within = forecast.photosWithinCap, let cap = forecast.capCalls, let period = forecast.capPeriod {
            lines.append(
                "spend cap: \(forecast.capUsed ?? 0) of \(String(format: "%.0f", cap)) calls used this \(period); "
                    + (within >= forecast.enqueued
                        ? "room for all of it" : "room for at most \(within) of these photos, the rest wait for the next \(period) or a higher cap"))
        }
        if !forecast.started { lines.append("dry run: nothing enqueued") }
        return lines.joined(separator: "\n")
    }
}
