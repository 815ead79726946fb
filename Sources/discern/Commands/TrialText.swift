import Foundation
import QueueReads

/// A trial's report as a person reads it in a terminal.
enum TrialText {
    static func render(_ report: TrialReport) -> String {
        let candidate = report.candidate.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        var lines = [
            "trial \(report.name): \(report.service) \(report.action)" + (candidate.isEmpty ? "" : " (\(candidate))")
                + " against \(report.productionService) \(report.productionAction), batch \(report.batch), "
                + "\(TrialFormat.sample(report.sampleCount, report.share)) (seed \(report.seed))",
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
                        field.field, "\(field.agree)/\(field.n) " + TrialFormat.percent(field.agreement),
                        TrialFormat.interval(field.agreeLow, field.agreeHigh),
                        field.reviewed > 0 ? "\(field.reviewed)" : "-",
                        TrialFormat.right(field.productionRight, of: field.reviewed, field.productionLow, field.productionHigh),
                        TrialFormat.right(field.candidateRight, of: field.reviewed, field.candidateLow, field.candidateHigh)
                    ]
                }))
        if !report.calibration.isEmpty {
            lines.append("calibration: right on every reviewed field, by confidence")
            lines.append(
                TextTable.render(
                    headers: ["side", "confidence", "reviewed", "right", "95 % interval"],
                    rows: report.calibration.map {
                        [
                            $0.side, $0.band, "\($0.n)", "\($0.rightCount) " + TrialFormat.percent(Double($0.rightCount) / Double(max($0.n, 1))),
                            TrialFormat.interval($0.low, $0.high)
                        ]
                    }))
        }
        lines.append(
            TextTable.render(
                headers: ["side", "service", "photos", "calls/photo", "cost/photo", "latency median", "p95", "models"],
                rows: report.sides.map { side in
                    [
                        side.side, side.service, "\(side.photos)", side.callsPerPhoto.map { String(format: "%.2f", $0) } ?? "-",
                        side.costPerPhoto.map { String(format: "%.4f", $0) } ?? "-", TrialFormat.milliseconds(side.latencyMsMedian),
                        TrialFormat.milliseconds(side.latencyMsP95), side.models.isEmpty ? "-" : side.models.joined(separator: ", ")
                    ]
                }))
        return lines.joined(separator: "\n")
    }
}
