import ArgumentParser
import Foundation
import QueueReads

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Summarise a batch: outcomes by service, top errors, throughput, bytes saved, API calls (Markdown or JSON).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The batch's name, as given to enqueue --batch.")
    var batch: String

    @Option(help: "markdown or json.")
    var format: ReportFormat = .markdown

    @Option(name: .shortAndLong, help: "Write the report to this file instead of standard output.")
    var output: String?

    func run() async throws {
        let report: BatchReport
        do {
            report = try await database.reader().report(batch: batch)
        } catch ReadError.notFound {
            throw ValidationError("there is no batch named '\(batch)' (discern batches lists them)")
        }
        let text: String
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            text = String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
        } else {
            text = MarkdownReport.render(report)
        }
        if let output {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } else {
            print(text, terminator: "")
        }
    }
}

enum MarkdownReport {
    static func render(_ report: BatchReport) -> String {
        var lines = ["# Batch \(cell(report.batch))", "", "Created \(report.createdAt). \(report.totalJobs) jobs."]
        if let elapsed = report.elapsedSeconds {
            lines[2] += " Last job finished \(duration(elapsed)) after the batch was created"
            lines[2] += report.jobsPerMinute.map { String(format: "; %.1f jobs/min while finishing.", $0) } ?? "."
        }
        lines += [
            "", "## Outcomes by service", "",
            "| service | jobs | succeeded | dead | cancelled | pending | failed attempts | API calls | outcomes |",
            "|---|---|---|---|---|---|---|---|---|"
        ]
        for service in report.services {
            let outcomes = service.outcomes.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\(cell($0.key)) \($0.value)" }.joined(
                separator: ", ")
            lines.append(
                "| \(service.service) | \(service.jobs) | \(service.succeeded) | \(service.dead) | \(service.cancelled) | \(service.pending) "
                    + "| \(service.failedAttempts) | \(service.apiCalls) | \(outcomes.isEmpty ? "-" : outcomes) |")
        }
        lines += [
            "", "## Image preparation", "",
            "| service | read | sent | saved | sent as is | avg prepare | avg analyze |", "|---|---|---|---|---|---|---|"
        ]
        for service in report.services {
            lines.append(
                "| \(service.service) | \(megabytes(service.originalBytes)) | \(megabytes(service.sentBytes)) "
                    + "| \(megabytes(service.originalBytes - service.sentBytes)) | \(service.passedThrough) of \(service.succeeded) "
                    + "| \(milliseconds(service.averagePrepareMilliseconds)) | \(milliseconds(service.averageAnalyzeMilliseconds)) |")
        }
        lines += ["", "Bytes saved by preparation: \(megabytes(report.bytesSaved)).", ""]
        if report.nearDuplicates > 0 {
            lines += [
                "Near-duplicates put last: \(report.nearDuplicates); not analysed: \(report.nearDuplicatesNotAnalysed), "
                    + "\(report.callsSaved) call(s) saved.", ""
            ]
        }
        lines += ["## Top errors (dead jobs)", ""]
        if report.topErrors.isEmpty {
            lines.append("None.")
        } else {
            lines += ["| service | error_kind | jobs | latest message |", "|---|---|---|---|"]
            for error in report.topErrors {
                lines.append("| \(cell(error.service)) | \(cell(error.kind)) | \(error.jobs) | \(cell(error.example)) |")
            }
            // A name is data, never a command: one quoted shell word, so pasting the hint runs only this.
            lines += [
                "",
                "Retry them after fixing the cause: `discern retry --batch \(TerminalText.shellQuoted(TerminalText.safe(report.batch, maxLength: 200)))`"
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text from the database in a Markdown table: no control characters, no column breaks.
    static func cell(_ text: String, maxLength: Int = 300) -> String {
        TerminalText.safe(text, maxLength: maxLength).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

    static func milliseconds(_ value: Double?) -> String { value.map { String(format: "%.0f ms", $0) } ?? "-" }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? "\(total / 3600) h \(total % 3600 / 60) min" : total >= 60 ? "\(total / 60) min \(total % 60) s" : "\(total) s"
    }
}

enum ReportFormat: String, CaseIterable, ExpressibleByArgument {
    case markdown, json
}
