import ArgumentParser
import ServiceClients
import Foundation
import QueueReads

struct QualityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quality",
        abstract:
            "How right the service is, from the audit sample: accuracy per field with its 95 % interval, by confidence band, and the review threshold that meets a target (the console's /quality)."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(
        name: [.customLong("service"), .customLong("backend")],
        help: ArgumentHelp("Only this service (default: the one with the largest audit sample).", valueName: "service"))
    var service: ServiceChoice?

    @Option(help: "Only results of this batch.")
    var batch: String?

    @Option(help: "Only results written in the last N days.")
    var since: Double?

    @Option(help: "The field the threshold is for: license_plate, fleet_id, operator or category.")
    var field = "license_plate"

    @Option(help: "The largest share of results that may stay wrong after review, e.g. 0.02.")
    var target = 0.02

    @Option(help: "table or json (the console's /api/quality).")
    var format: OutputFormat = .table

    func validate() throws {
        guard Quality.fields.contains(field) else { throw ValidationError("--field must be one of \(Quality.fields.joined(separator: ", "))") }
        guard target.isFinite, (0...1).contains(target) else { throw ValidationError("--target must be from 0 to 1, e.g. 0.02") }
        if let since { guard since.isFinite, since > 0, since <= 3650 else { throw ValidationError("--since must be from 1 to 3650 days") } }
    }

    func run() async throws {
        let filter = QualityFilter(
            batch: batch, since: since.map { Date().addingTimeInterval(-$0 * 86400) }, service: service?.rawValue,
            field: field, target: target)
        let quality = try await database.reader().quality(filter)
        if format == .json { return try JSONOutput.printView(quality) }
        print(QualityText.render(quality, field: field))
    }
}

enum QualityText {
    static func render(_ quality: Quality, field: String) -> String {
        func percent(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }
        var sections = quality.samples.map { sample in
            "audit sample, \(sample.service): \(sample.audited) picked, \(sample.reviewed) reviewed (\(sample.cannotTell) cannot tell), \(sample.pending) waiting"
        }
        if quality.samples.isEmpty { sections.append("no audited result in this period (discern.audit_settings sets the share)") }
        let overall = quality.rows.filter { $0.band == "all" }
        if !overall.isEmpty {
            sections.append(
                "accuracy from audit reviews:\n"
                    + TextTable.render(
                        headers: ["service", "field", "accuracy", "95 % interval", "reviewed", "wrong", "missing", "invented"],
                        rows: overall.map {
                            [
                                $0.service, $0.field, percent($0.accuracy), "\(percent($0.accuracyLow)) - \(percent($0.accuracyHigh))",
                                "\($0.n)", "\($0.wrong)", "\($0.missing)", "\($0.invented)"
                            ]
                        }))
        }
        let bands = quality.rows.filter { $0.field == field && $0.band != "all" }
        if !bands.isEmpty {
            sections.append(
                "\(field) by confidence band:\n"
                    + TextTable.render(
                        headers: ["service", "band", "accuracy", "95 % interval", "reviewed"],
                        rows: bands.map {
                            [$0.service, $0.band, percent($0.accuracy), "\(percent($0.accuracyLow)) - \(percent($0.accuracyHigh))", "\($0.n)"]
                        }))
        }
        if let advice = quality.recommendation {
            if let below = advice.reviewBelow, let share = advice.errorsAfterReviewAtMost, let perDay = advice.reviewsPerDay {
                sections.append(
                    String(
                        format: "to keep %@ wrong in at most %.1f %% of %@ results: review below %.1f (--review-below %.1f), "
                            + "about %.0f reviews a day, leaving at most %.2f %% wrong", advice.field, advice.target * 100,
                        advice.service, below, below, perDay, share * 100))
            } else {
                sections.append(
                    String(
                        format: "no threshold keeps %@ wrong in at most %.1f %% of %@ results on what was measured: review more of the audit sample",
                        advice.field, advice.target * 100, advice.service))
            }
        }
        return sections.joined(separator: "\n\n")
    }
}
