import ArgumentParser
import Foundation
import QueueReads

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract:
            "The night's plan: per service, the work queued, its pace and what binds it, when it finishes, what will not finish by --until, and what it costs.",
        discussion: """
            The pace is measured (jobs finished a minute, the last ten minutes) or, before any, the shared rate limit's \
            (per job, retries included). Prices and caps: discern.service_budgets (docs/operations.md, "Planning a night"). \
            Examples: discern plan --until 06:00; discern plan --until 2026-11-25T06:00:00+01:00 --format json
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(
        help: "The end of the window: HH:MM (the next one, this machine's time zone) or an ISO 8601 time. Default: $DISCERN_PLAN_UNTIL, else none.")
    var until: String?

    @Option(help: "table or json (the console's /api/plan).")
    var format: OutputFormat = .table

    func run() async throws {
        let end = try (until ?? Setting.present("DISCERN_PLAN_UNTIL")).map { text in
            guard let date = Plan.windowEnd(text) else {
                throw SettingError("--until must be HH:MM or an ISO 8601 time (2026-11-25T06:00:00+01:00), not \(text)")
            }
            return date
        }
        let plan = try await database.reader().plan(until: end)
        if format == .json { return try JSONOutput.printView(plan) }
        print(PlanText.render(plan))
    }
}

/// The plan as a person reads it in a terminal.
enum PlanText {
    static func render(_ plan: Plan) -> String {
        guard !plan.services.isEmpty else { return "nothing is queued" }
        let windowed = plan.until != nil
        let headers =
            ["service", "waiting", "running", "pace /min", "binds", "finishes"] + (windowed ? ["will not finish"] : [])
            + ["cost forecast", "spent this month", "spend cap"]
        let rows: [[String]] = plan.services.map { service in
            var row: [String] = [service.service, "\(service.waiting)", "\(service.running)", pace(service), service.constraintText, finish(service)]
            if windowed { row.append(service.willNotFinish.map { "\($0)" } ?? "-") }
            row.append(service.costForecast.map { String(format: "%.2f", $0) } ?? "-")
            let calls = "\(service.callsThisMonth) calls"
            row.append(service.spendThisMonth.map { String(format: "%.2f", $0) + " (\(calls))" } ?? calls)
            if let cap = service.capCalls, let used = service.capUsed, let period = service.capPeriod {
                row.append("\(used) of \(String(format: "%.0f", cap)) calls this \(period)" + (Double(used) >= cap ? ": reached" : ""))
            } else {
                row.append("-")
            }
            return row
        }
        var lines = [TextTable.render(headers: headers, rows: rows)]
        if let until = plan.until { lines.insert("window ends \(ViewText.time(until))", at: 0) }
        for service in plan.services where !service.leftOver.isEmpty {
            lines.append("\(service.service): left over when the window closes, in the order workers take them:")
            lines.append(
                TextTable.render(
                    headers: ["batch", "priority", "jobs", "oldest enqueued"],
                    rows: service.leftOver.map {
                        [$0.batch ?? "-", "\($0.priority)", "\($0.jobs)", ViewText.time($0.oldest)]
                    }))
        }
        return lines.joined(separator: "\n")
    }

    static func pace(_ service: Plan.Service) -> String { service.paceText ?? "-" }

    static func finish(_ service: Plan.Service) -> String {
        service.finishNoSoonerThan.map { "no sooner than \(ViewText.time($0)) (the service is unavailable)" }
            ?? service.finishRange.map { $0.map(ViewText.time).joined(separator: " - ") } ?? "never at this pace"
    }
}
