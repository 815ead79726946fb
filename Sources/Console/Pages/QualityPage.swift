import Foundation
import QueueReads

/// How right the service is, from the audit sample: accuracy per field with its interval, the
/// kinds of error, a calibration chart (confidence band against observed accuracy) and the
/// review threshold that meets a target.
enum QualityPage {
    static func render(_ quality: Quality, filter: QualityFilter, _ context: PageContext) -> Page {
        let service = quality.recommendation?.service ?? filter.service ?? context.services.first ?? ""
        var parts = [form(filter, service: service, context)]
        let sample = quality.samples.first { $0.service == service }
        parts.append(
            "<p>Audit sample of <b>\(service)</b>: \(HTML.number(sample?.audited ?? 0)) results picked, "
                + "\(HTML.number(sample?.reviewed ?? 0)) reviewed (\(HTML.number(sample?.cannotTell ?? 0)) cannot tell), "
                + "<a href=\"/review#audit\">\(HTML.number(sample?.pending ?? 0)) waiting</a>. Figures come from audit reviews only.</p>")
        let overall = quality.rows.filter { $0.service == service && $0.band == "all" }
        parts.append(
            overall.isEmpty
                ? "<p class=\"muted\">No audit review yet: accuracy appears once audited results are reviewed.</p>" as HTML
                : """
                <table data-table="accuracy"><tr><th>field</th><th>accuracy</th><th>95 % interval</th><th>reviewed</th><th>wrong</th><th>missing</th><th>invented</th></tr>
                \(overall.map { row -> HTML in
                    "<tr data-field=\"\(row.field)\"><td>\(row.field)</td><td class=\"n\"><b>\(percent(row.accuracy))</b></td><td class=\"n\">\(percent(row.accuracyLow)) – \(percent(row.accuracyHigh))</td><td class=\"n\">\(HTML.number(row.n))</td><td class=\"n\">\(HTML.number(row.wrong))</td><td class=\"n\">\(HTML.number(row.missing))</td><td class=\"n\">\(HTML.number(row.invented))</td></tr>"
                }.joined())</table>
                """)
        parts.append("<h2>Calibration: \(filter.field)</h2>")
        parts.append(chart(quality.rows.filter { $0.service == service && $0.field == filter.field && $0.band.count == 3 }))
        parts.append(
            overall.isEmpty
                ? "<p class=\"muted\" data-recommendation=\"none\">No review threshold to recommend until audited results are reviewed.</p>"
                : recommendation(quality.recommendation))
        return Page(title: "Quality", active: "/quality", body: parts.joined(separator: "\n"))
    }

    private static func percent(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }

    private static func form(_ filter: QualityFilter, service: String, _ context: PageContext) -> HTML {
        func options(_ values: [String], _ chosen: String) -> HTML {
            values.map { "<option value=\"\($0)\"\($0 == chosen ? " selected" as HTML : "")>\($0)</option>" }.joined()
        }
        let days = filter.since.map { String(Int((Date().timeIntervalSince($0) / 86400).rounded())) } ?? ""
        return """
            <form class="filters" method="get" action="/quality">
            <label>service<select name="service">\(options(context.services, service))</select></label>
            <label>field<select name="field">\(options(Quality.fields, filter.field))</select></label>
            <label>batch<input type="text" name="batch" value="\(filter.batch)"></label>
            <label>last days<input type="number" name="days" min="1" max="3650" value="\(days)"></label>
            <label>wrong after review at most<input type="number" name="target" min="0" max="1" step="0.005" value="\(String(filter.target))"></label>
            <button type="submit" class="primary">Show</button></form>
            """
    }

    /// Observed accuracy per confidence band with its interval, against the diagonal a
    /// calibrated service would follow (accuracy equal to confidence). Inline SVG, no script.
    static func chart(_ rows: [Quality.Row]) -> HTML {
        guard !rows.isEmpty else { return "<p class=\"muted\">No audited result of this field has a confidence yet.</p>" }
        let (width, height, pad, left) = (520.0, 300.0, 40.0, 60.0)
        func x(_ value: Double) -> Double { left + value * (width - left - pad) }
        func y(_ value: Double) -> Double { height - pad - value * (height - 2 * pad) }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var marks: [HTML] = [
            "<line x1=\"\(f(x(0)))\" y1=\"\(f(y(0)))\" x2=\"\(f(x(1)))\" y2=\"\(f(y(1)))\" stroke=\"#bbb\" stroke-dasharray=\"4 4\"/>",
            "<line x1=\"\(f(x(0)))\" y1=\"\(f(y(0)))\" x2=\"\(f(x(1)))\" y2=\"\(f(y(0)))\" stroke=\"#888\"/>",
            "<line x1=\"\(f(x(0)))\" y1=\"\(f(y(0)))\" x2=\"\(f(x(0)))\" y2=\"\(f(y(1)))\" stroke=\"#888\"/>"
        ]
        for tick in stride(from: 0.0, through: 1.0, by: 0.2) {
            marks.append(
                "<text x=\"\(f(x(tick)))\" y=\"\(f(height - pad + 16))\" font-size=\"11\" text-anchor=\"middle\">\(String(format: "%.1f", tick))</text>"
            )
            marks.append("<text x=\"\(f(left - 6))\" y=\"\(f(y(tick) + 4))\" font-size=\"11\" text-anchor=\"end\">\(Int(tick * 100)) %</text>")
        }
        marks.append("<text x=\"\(f(width / 2))\" y=\"\(f(height - 4))\" font-size=\"12\" text-anchor=\"middle\">confidence the service gave</text>")
        marks.append(
            "<text x=\"12\" y=\"\(f(height / 2))\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 12 \(f(height / 2)))\">right in the audit</text>"
        )
        for row in rows {
            guard let band = Double(row.band) else { continue }
            let middle = x(band + 0.05)
            marks.append(
                "<g data-band=\"\(row.band)\"><title>\(row.band)–\(String(format: "%.1f", band + 0.1)): \(percent(row.accuracy)) right of \(row.n) (95 %: \(percent(row.accuracyLow))–\(percent(row.accuracyHigh)))</title>"
                    + "<line x1=\"\(f(middle))\" y1=\"\(f(y(row.accuracyLow)))\" x2=\"\(f(middle))\" y2=\"\(f(y(row.accuracyHigh)))\" stroke=\"#2a6fdb\" stroke-width=\"2\"/>"
                    + "<circle cx=\"\(f(middle))\" cy=\"\(f(y(row.accuracy)))\" r=\"4\" fill=\"#2a6fdb\"/>"
                    + "<text x=\"\(f(middle))\" y=\"\(f(y(row.accuracyHigh) - 6))\" font-size=\"10\" text-anchor=\"middle\">n=\(row.n)</text></g>")
        }
        return
            "<svg class=\"chart\" role=\"img\" aria-label=\"calibration\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\">\(marks.joined())</svg>"
    }

    private static func recommendation(_ value: Quality.Recommendation?) -> HTML {
        guard let value else { return "" }
        let target = String(format: "%.1f %%", value.target * 100)
        guard let below = value.reviewBelow, let share = value.errorsAfterReviewAtMost, let perDay = value.reviewsPerDay else {
            return
                "<p class=\"bad\" data-recommendation=\"none\">No threshold keeps \(value.field) wrong in at most \(target) of results on what was measured: review more of the audit sample, or everything.</p>"
        }
        return """
            <p data-recommendation="\(String(format: "%.1f", below))">To keep <b>\(value.field)</b> wrong in at most \(target) of results after review, \
            review every result below <b>\(String(format: "%.1f", below))</b> confidence: about <b>\(HTML.number(Int(perDay.rounded())))</b> reviews a day, \
            leaving at most \(String(format: "%.2f %%", share * 100)) wrong (each band at its accuracy's lower bound). \
            <a href="/review?below=\(String(format: "%.1f", below))#low">Review below \(String(format: "%.1f", below))</a>, or start the console with <code>--review-below \(String(format: "%.1f", below))</code>.</p>
            """
    }
}
