import Foundation
import QueueReads

/// A trial's report as a person reads it in a terminal.
enum TrialText {
    static func render(_ report: TrialReport) -> String {
        let candidate = report.candidate.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        var lines = [
            "trial \(report.name): \(report.service) \(report.action)" + (candidate.isEmpty ? "" : " (\(candidate))")
                + " against \(report.productionService) \(report.productionAction), batch \(report.batch), "
                + "\(sample(report.sampleCount, report.share)) (seed \(report.seed))",
            "sampled \(report.sampled), answered \(report.answered), compared \(report.compared), reviewed by a person \(report.reviewed)"
                + (report.failed.isEmpty
                    ? "" : "; failed: " + report.failed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        ]
        guard !report.fields.isEmpty else { return (lines + ["nothing to compare yet"]).joined(separator: "\n") }
        lines.append(
            TextTable.render(
                headers: ["field", "agree", "95 % interval", "reviewed", "production right", "candidate right"],
                rows: report.fields.map { field in
                    [
                        field.field, "\(field.agree)/\(field.n) " + percent(field.agreement), interval(field.agreeLow, field.agreeHigh),
                        field.reviewed > 0 ? "\(field.reviewed)" : "-",
                        right(field.productionRight, field.reviewed, field.productionLow, field.productionHigh),
                        right(field.candidateRight, field.reviewed, field.candidateLow, field.candidateHigh)
                    ]
                }))
        if !report.calibration.isEmpty {
            lines.append("calibration: right on every reviewed field, by confidence")
            lines.append(
                TextTable.render(
                    headers: ["side", "confidence", "reviewed", "right", "95 % interval"],
                    rows: report.calibration.map {
                        [
                            $0.side, $0.band, "\($0.n)", "\($0.rightCount) " + percent(Double($0.rightCount) / Double(max($0.n, 1))),
                            interval($0.low, $0.high)
                        ]
                    }))
        }
        lines.append(
            TextTable.render(
                headers: ["side", "service", "photos", "calls/photo", "cost/photo", "latency median", "p95", "models"],
                rows: report.sides.map { side in
                    [
                        side.side, side.backend, "\(side.photos)", side.callsPerPhoto.map { String(format: "%.2f", $0) } ?? "-",
                        side.costPerPhoto.map { String(format: "%.4f", $0) } ?? "-", milliseconds(side.latencyMsMedian),
                        milliseconds(side.latencyMsP95), side.models.isEmpty ? "-" : side.models.joined(separator: ", ")
                    ]
                }))
        return lines.joined(separator: "\n")
    }

    static func sample(_ count: Int?, _ share: Double?) -> String {
        count.map { "\($0) photos" } ?? share.map { String(format: "%g %%", $0 * 100) } ?? "-"
    }

    static func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }

    static func interval(_ low: Double?, _ high: Double?) -> String {
        guard let low, let high else { return "-" }
        return String(format: "%.1f-%.1f %%", low * 100, high * 100)
    }

    static func right(_ count: Int, _ of: Int, _ low: Double?, _ high: Double?) -> String {
        of > 0 ? "\(count)/\(of) (\(interval(low, high)))" : "-"
    }

    static func milliseconds(_ value: Double?) -> String { value.map { String(format: "%.0f ms", $0) } ?? "-" }
}
