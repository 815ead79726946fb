import ArgumentParser
import Foundation
import QueueReads

struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "List jobs by state, batch, error kind, service, file name or day, or show one job with its error history.",
        subcommands: [JobsList.self, JobsShow.self], defaultSubcommand: JobsList.self)
}

struct JobsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List jobs, newest first (the default of `discern jobs`).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only jobs in this state.")
    var state: JobStateChoice?

    @OptionGroup var filter: JobFilterOptions

    @Option(help: "How many jobs, 1-10000.")
    var limit: Int = 50

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
    }

    func run() async throws {
        let list = try await database.reader().jobs(
            JobFilter(
                state: state?.rawValue, batch: filter.batch, errorKind: filter.kind, service: filter.service?.rawValue,
                file: filter.file, fromDay: filter.from, toDay: filter.to, limit: limit))
        if format == .json { return try JSONOutput.printView(list) }
        print(
            TextTable.render(
                headers: ["job", "state", "service", "batch", "tries", "file", "error_kind", "updated"],
                rows: list.items.map { job in
                    [
                        "\(job.id)", job.state, job.service, job.batch ?? "-", "\(job.attempts)/\(job.maxAttempts)", ViewText.file(job.imagePath),
                        job.errorKind ?? "-", ViewText.time(job.updatedAt)
                    ]
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
        let detail: JobDetail
        do {
            detail = try await database.reader().detail(jobID: Int(id))
        } catch ReadError.notFound {
            throw ValidationError("there is no job \(id) (it may have been pruned; its result, if any, is kept)")
        }
        guard let job = detail.job else { throw ValidationError("there is no job \(id) (it may have been pruned; its result, if any, is kept)") }
        if format == .json { return try JSONOutput.printView(detail) }
        print(JobSheet.render(job, result: detail.result, actions: detail.actions))
    }
}

/// One job as `key: value` lines, its error history as a numbered list.
enum JobSheet {
    static func render(_ job: JobDetail.Job, result: JobDetail.Result?, actions: [OperatorAction] = []) -> String {
        func text(_ value: (any CustomStringConvertible)?, _ maxLength: Int = 2000) -> String {
            value.map { TerminalText.safe($0.description, maxLength: maxLength) } ?? "-"
        }
        var lines = [
            "job \(job.id): \(text(job.state))  (\(text(job.service)) \(text(job.action)), batch \(text(job.batch)))",
            "file:        \(text(job.imagePath))",
            "attempts:    \(job.attempts) of \(job.maxAttempts), priority \(job.priority)",
            "created:     \(text(job.createdAt))", "run at:      \(text(job.runAt))", "updated:     \(text(job.updatedAt))",
            "finished:    \(text(job.finishedAt))"
        ]
        if let owner = job.leaseOwner { lines.append("lease:       \(text(owner)) until \(text(job.leaseExpiresAt))") }
        if let kind = job.errorKind { lines.append("last error:  \(text(kind)): \(text(job.lastError))") }
        if let trace = job.traceId { lines.append("trace:       \(text(trace))") }
        if !job.errorHistory.isEmpty {
            lines.append("errors (\(job.errorHistory.count)):")
            for entry in job.errorHistory {
                lines.append("  #\(text(entry.attempt, 500)) \(text(entry.at, 500))  \(text(entry.kind, 500)): \(text(entry.error, 500))")
            }
        }
        if !actions.isEmpty {
            lines.append("who acted on it:")
            for action in actions {
                lines.append(
                    "  \(text(action.at, 100))  \(text(action.actor, 200)) \(text(action.action, 20)) \(text(action.scope, 500)) (\(action.jobs) job(s))"
                )
            }
        }
        if let result {
            let fields: [(String, (any CustomStringConvertible)?)] = [
                ("outcome", result.outcome), ("subject_id", result.subjectId), ("category", result.category),
                ("subcategory", result.subcategory), ("operator", result.operator_), ("fleet_id", result.fleetId),
                ("license_plate", result.licensePlate), ("confidence", result.confidence), ("original_bytes", result.originalBytes),
                ("sent_bytes", result.sentBytes), ("analyze_ms", result.analyzeMs), ("created_at", result.createdAt)
            ]
            lines.append("result:")
            for (key, value) in fields { if let value { lines.append("  \(key): \(text(value, 500))") } }
        }
        return lines.joined(separator: "\n")
    }
}
