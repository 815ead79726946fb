import ArgumentParser
import Foundation
import QueueReads

struct BatchesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batches",
        abstract:
            "The newest batches: progress, rate, time left, outcomes, top errors and who was told (the console's batches page); or wait for one to end.",
        subcommands: [BatchesList.self, BatchesWait.self], defaultSubcommand: BatchesList.self)
}

struct BatchesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "The newest batches: progress, rate, time left, outcomes, top errors and who was told (the console's batches page).")

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
        print(
            TextTable.render(
                headers: [
                    "batch", "created", "jobs", "succeeded", "dead", "cancelled", "running", "waiting", "done %", "rate", "saved", "top error",
                    "webhook"
                ],
                rows: batches.map { batch in
                    let rate =
                        batch.isFinished
                        ? batch.averagePerMinute.map { String(format: "%.1f/min avg", $0) } ?? "-"
                        : String(format: "%.1f/min", batch.perMinute)
                            + (batch.etaSeconds.map { ", \(MarkdownReport.duration($0)) left" }
                                ?? (batch.noLiveWorker ? ", not moving: no live worker" : ""))
                    let error = batch.errors.first.map { "\($0.errorKind ?? "-") ×\($0.jobs)" } ?? "-"
                    return [
                        batch.name, ViewText.time(batch.createdAt), "\(batch.jobs)", "\(batch.succeeded)", "\(batch.dead)", "\(batch.cancelled)",
                        "\(batch.running)", "\(batch.available)", String(format: "%.1f", batch.percentDone), rate,
                        MarkdownReport.megabytes(max(0, batch.originalBytes - batch.sentBytes)), error,
                        batch.webhook?.summary ?? (batch.isFinished ? "not yet (settling)" : "-")
                    ]
                }))
    }
}

/// For shell pipelines and CI jobs that run after the night: blocks until the batch has no job
/// waiting or running, then exits 0 (none dead), 1 (some dead: `discern jobs --state dead --batch
/// NAME` lists them) or 2 (the timeout came first). A batch that does not exist is a usage error
/// (64): a typo must not wait forever.
struct BatchesWait: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait", abstract: "Wait until a batch ends; exit 0 if every job succeeded, 1 if some are dead, 2 on timeout.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The batch's name.")
    var name: String

    @Option(help: "Give up after this many seconds (exit 2). Default: wait as long as it takes.")
    var timeout: Double?

    @Option(help: "Seconds between looks, 0.1-600.")
    var every: Double = 2

    func validate() throws {
        guard (0.1...600).contains(every) else { throw ValidationError("--every must be from 0.1 to 600") }
        if let timeout, timeout < 0 { throw ValidationError("--timeout must be 0 or more") }
    }

    func run() async throws {
        let reader = try await database.reader()
        let deadline = timeout.map { ContinuousClock.now + .seconds($0) }
        while true {
            let state: BatchState
            do {
                state = try await reader.batchState(named: name)
            } catch ReadError.notFound {
                throw SettingError("there is no batch named \(name) (`discern batches` lists them)")
            }
            if state.isFinished {
                print("batch \(state.name) ended: \(state.jobs) jobs, \(state.dead) dead")
                if state.dead > 0 { throw ExitCode(ExitStatus.someJobsDead) }
                return
            }
            if let deadline, ContinuousClock.now >= deadline {
                StandardError.write(
                    "discern: batch \(name) has not ended after \(timeout ?? 0) s; \(state.waiting > 0 ? "jobs are still waiting or running" : "")\n")
                throw ExitCode(ExitStatus.timedOut)
            }
            try await Task.sleep(for: .seconds(deadline.map { min(every, max(0.01, Self.seconds($0 - .now))) } ?? every))
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
