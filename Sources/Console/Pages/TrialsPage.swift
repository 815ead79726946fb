import Foundation
import QueueReads

/// Trials before a cutover (`discern trial`): the list, and one trial's comparison with
/// production, field by field, with what a person's reviews say of each side.
enum TrialsPage {
    static func list(_ list: TrialList, _ context: PageContext) -> Page {
        guard !list.items.isEmpty else {
            return Page(
                title: "Trials", active: "/trials",
                body:
                    "<p>No trial yet. <code>discern trial run NAME --batch B --share 0.05 --set VARIABLE=value</code> tries a candidate on a sample of a batch (docs/operations.md).</p>"
            )
        }
        let rows = list.items.map { item -> HTML in
            "<tr><td><a href=\"/trials/\(path(item.name))\">\(item.name)</a></td><td>\(item.service) \(item.action)</td>" as HTML
                + "<td>\(item.productionService)</td><td>\(item.batch)</td><td>\(TrialFormat.sample(item.sampleCount, item.share))</td>"
                + "<td class=\"n\">\(HTML.number(item.answered))</td><td class=\"n\">\(HTML.number(item.failed))</td>"
                + "<td>\(HTML.time(item.createdAt))</td></tr>"
        }.joined()
        return Page(
            title: "Trials", active: "/trials",
            body: """
                <p class="muted">A candidate service or setting tried on a sample of a batch, its answers kept apart from production's.</p>
                <table><tr><th>trial</th><th>candidate</th><th>against</th><th>batch</th><th>sample</th><th>answered</th><th>failed</th>\
                <th>started</th></tr>\(rows)</table>
                """)
    }

    static func report(_ report: TrialReport, _ context: PageContext) -> Page {
        let settings = report.candidate.sorted { $0.key < $1.key }.map { "<code>\($0.key)=\($0.value)</code>" as HTML }.joined(separator: " ")
        let failed = report.failed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let fields = report.fields.map { field -> HTML in
            "<tr><td>\(field.field)</td><td class=\"n\">\(field.agree) of \(field.n) (\(TrialFormat.percent(field.agreement)))</td>" as HTML
                + "<td>\(TrialFormat.interval(field.agreeLow, field.agreeHigh))</td><td class=\"n\">\(field.reviewed > 0 ? String(field.reviewed) : "–")</td>"
                + "<td>\(TrialFormat.right(field.productionRight, of: field.reviewed, field.productionLow, field.productionHigh))</td>"
                + "<td>\(TrialFormat.right(field.candidateRight, of: field.reviewed, field.candidateLow, field.candidateHigh))</td></tr>"
        }.joined()
        let calibration = report.calibration.map { band -> HTML in
            "<tr><td>\(band.side)</td><td>\(band.band)</td><td class=\"n\">\(band.n)</td>" as HTML
                + "<td class=\"n\">\(band.rightCount) (\(TrialFormat.percent(Double(band.rightCount) / Double(max(band.n, 1)))))</td>"
                + "<td>\(TrialFormat.interval(band.low, band.high))</td></tr>"
        }.joined()
        let sides = report.sides.map { side -> HTML in
            "<tr><td>\(side.side)</td><td>\(side.service)</td><td class=\"n\">\(HTML.number(side.photos))</td>" as HTML
                + "<td class=\"n\">\(side.callsPerPhoto.map { String(format: "%.2f", $0) } ?? "–")</td>"
                + "<td class=\"n\">\(side.costPerPhoto.map { String(format: "%.4f", $0) } ?? "–")</td>"
                + "<td class=\"n\">\(TrialFormat.milliseconds(side.latencyMsMedian))</td><td class=\"n\">\(TrialFormat.milliseconds(side.latencyMsP95))</td>"
                + "<td>\(side.models.isEmpty ? "–" : side.models.joined(separator: ", "))</td></tr>"
        }.joined()
        let body: HTML = """
            <p>\(report.service) \(report.action) \(settings) against \(report.productionService) \(report.productionAction), \
            batch <a href="/report\(HTML.query([("batch", report.batch)]))">\(report.batch)</a>, \(TrialFormat.sample(report.sampleCount, report.share)) \
            (seed \(String(report.seed))), started by \(report.createdBy) \(HTML.time(report.createdAt)).</p>
            <p>Sampled \(HTML.number(report.sampled)), answered \(HTML.number(report.answered)), compared \(HTML.number(report.compared)), \
            reviewed by a person \(HTML.number(report.reviewed))\(failed.isEmpty ? "" : "; failed: \(failed)").</p>
            <h2>Agreement with production</h2>
            <p class="muted">Texts compared without case and outer spaces; both absent agree. Right: against the newest review of the production result (not "cannot tell"). Intervals: 95 % Wilson.</p>
            <table><tr><th>field</th><th>agree</th><th>interval</th><th>reviewed</th><th>production right</th><th>candidate right</th></tr>\(fields)</table>
            <h2>Calibration</h2>
            \(calibration.isEmpty ? "<p>No reviewed photo in the sample.</p>" as HTML : "<p class=\"muted\">Right on every reviewed field, by each side's confidence.</p><table><tr><th>side</th><th>confidence</th><th>reviewed</th><th>right</th><th>interval</th></tr>\(calibration)</table>")
            <h2>Calls, cost and latency per photo</h2>
            <table><tr><th>side</th><th>service</th><th>photos</th><th>calls</th><th>cost</th><th>latency median</th><th>p95</th><th>models</th></tr>\(sides)</table>
            """
        return Page(title: "Trial \(report.name)", active: "/trials", body: body)
    }

    static func path(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }
}
