import ArgumentParser
import Foundation
import QueueReads

struct ResultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "results", abstract: "Print the latest results as a table.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "How many results, newest first.")
    var limit: Int = 20

    @Option(name: [.customLong("service"), .customLong("backend")], help: ArgumentHelp("Only this service's results.", valueName: "service"))
    var service: ServiceChoice?

    @Option(help: "Only results of this batch.")
    var batch: String?

    @Option(help: "One photo's answers over time, from every service (its path as stored).")
    var photo: String?

    @Option(help: "table or json (the console's /api/results: one card per result).")
    var format: OutputFormat = .table

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
    }

    func run() async throws {
        var filter = ResultFilter()
        filter.service = service?.rawValue
        filter.batch = batch
        filter.imagePath = photo
        filter.limit = limit
        let page = try await database.reader().results(filter)
        if format == .json { return try JSONOutput.printView(page) }
        // One photo's history: when each answer came and which model gave it, in place of sizes.
        let history = photo != nil
        let table = page.items.map { card -> [String] in
            [
                card.jobId.map(String.init) ?? "-", ViewText.file(card.imagePath), card.service, card.outcome ?? "-",
                card.subjectId ?? "-", card.category ?? "-", card.operator_ ?? "-", card.fleetId ?? "-", card.licensePlate ?? "-",
                card.confidence.map { String(format: "%.3f", $0) } ?? "-"
            ]
                + (history
                    ? [ViewText.time(card.createdAt), card.model ?? "-"]
                    : [Self.kilobytes(card.originalBytes), Self.kilobytes(card.sentBytes), card.passedThrough ? "as is" : "prepared"])
        }
        print(
            TextTable.render(
                headers: ["job", "file", "service", "outcome", "subject", "category", "operator", "fleet_id", "license_plate", "confidence"]
                    + (history ? ["answered", "model"] : ["original", "sent", "image"]), rows: table))
    }

    static func kilobytes(_ bytes: Int) -> String { "\((bytes + 512) / 1024) KB" }
}
