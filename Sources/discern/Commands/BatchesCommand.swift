import ArgumentParser
import Foundation
import QueueReads

struct BatchesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batches", abstract: "The newest batches: progress, rate, time left, outcomes and top errors (the console's batches page).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only the batch of this name.")
    var name: String?

    @Option(help: "How many batches, newest first, 1-1000.")
    var limit: Int = BatchSummary.pageSize

    @Option(help: "table or json (the console's /api/batches).")
    var format: OutputFormat = .table

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
    }

    func run() async throws {
        let batches = try await database.reader().batches(named: name, limit: limit)
        if format == .json { return try JSONOutput.printView(batches) }
        print(TextTable.render(
            headers: ["batch", "created", "jobs", "succeeded", "dead", "cancelled", "running", "waiting", "done %", "rate", "saved", "top error"],
            rows: batches.map { batch in
                let rate = batch.isFinished ? batch.averagePerMinute.map { String(format: "%.1f/min avg", $0) } ?? "-"
                    : String(format: "%.1f/min", batch.perMinute)
                        + (batch.etaSeconds.map { ", \(MarkdownReport.duration($0)) left" } ?? (batch.noLiveWorker ? ", not moving: no live worker" : ""))
                let error = batch.errors.first.map { "\($0.errorKind ?? "-") ×\($0.jobs)" } ?? "-"
                return [batch.name, ViewText.time(batch.createdAt), "\(batch.jobs)", "\(batch.succeeded)", "\(batch.dead)", "\(batch.cancelled)",
                        "\(batch.running)", "\(batch.available)", String(format: "%.1f", batch.percentDone), rate,
                        MarkdownReport.megabytes(max(0, batch.originalBytes - batch.sentBytes)), error]
            }))
    }
}
