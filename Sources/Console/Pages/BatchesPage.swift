import Foundation
import QueueReads

/// Page 2.
enum BatchesPage {
    static func render(_ batches: [BatchSummary], notice: String? = nil, _ context: PageContext) -> Page {
        let said = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTML } ?? ""
        guard !batches.isEmpty else {
            return Page(
                title: "Batches", active: "/batches", body: "<p class=\"muted\">No batch yet: <code>discern enqueue FOLDER --batch NAME</code>.</p>")
        }
        let rows = batches.map { batch -> HTML in
            let eta: HTML =
                batch.etaSeconds.map { "done in \(HTML.duration($0))" }
                ?? (batch.isCancelledWhole
                    ? "cancelled"
                    : batch.isFinished
                        ? "finished"
                        : batch.noLiveWorker ? "<span class=\"bad\">not moving: no live worker</span>" : "not moving")
            // A finished batch shows the pace it kept; a running one its last 10 minutes.
            let rate =
                batch.isFinished
                ? batch.averagePerMinute.map { String(format: "%.1f/min on average", $0) } ?? "–"
                : String(format: "%.1f/min", batch.perMinute)
            let saved = batch.originalBytes - batch.sentBytes
            // Who was told it ended (docs/operations.md, "When the night is done").
            let told: HTML = batch.webhook.map { "<br><span class=\"muted\">webhook: \($0.summary)</span>" as HTML } ?? ""
            let outcomes = batch.outcomes.map { "\($0.outcome) \(HTML.number($0.results))" }.joined(separator: ", ")
            let errors = batch.errors.map {
                "<div class=\"bad\">\($0.errorKind ?? "–") × \(HTML.number($0.jobs))<br><span class=\"muted\">\($0.example)</span></div>" as HTML
            }.joined()
            let actions =
                (batch.dead > 0 ? context.action("/actions/retry", "Retry \(batch.dead) dead", fields: [("batch", batch.name)]) : "")
                + (!batch.isFinished ? context.action("/actions/cancel", "Cancel the rest", fields: [("batch", batch.name)]) : "")
            return """
                <tr><td><b>\(batch.name)</b><br><span class="muted">\(HTML.time(batch.createdAt))</span></td>
                <td><progress max="100" value="\(String(format: "%.1f", batch.percentDone))" aria-label="\(batch.name) done"></progress>
                    \(String(format: "%.1f", batch.percentDone)) %<br><span class="muted">\(HTML.number(batch.done)) of \(HTML.number(batch.jobs)); \
                \([(batch.succeeded, "succeeded", "succeeded"), (batch.dead, "dead", "dead"), (batch.cancelled, "cancelled", "cancelled"),
                   (batch.running, "running", "running"), (batch.available, "available", "waiting")].map { jobs, state, label -> HTML in
                    "<a href=\"/jobs\(HTML.query([("batch", batch.name), ("state", state)]))\">\(HTML.number(jobs)) \(label)</a>"
                }.joined(separator: ", "))</span></td>
                <td>\(rate)<br><span class="muted">\(eta)</span>\(told)</td>
                <td>\(outcomes.isEmpty ? "–" : outcomes)</td>
                <td>\(errors.isEmpty ? "<span class=\"ok\">none</span>" : errors)</td>
                <td class="n">\(HTML.bytes(max(0, saved)))</td>
                <td><a href="/results\(HTML.query([("batch", batch.name)]))">results</a> · \
                <a href="/report\(HTML.query([("batch", batch.name)]))">report</a><br>\(actions)</td></tr>
                """
        }.joined()
        return Page(
            title: "Batches", active: "/batches",
            body: """
                \(said)<table><tr><th>batch</th><th>progress</th><th>rate, ETA</th><th>outcomes</th><th>top errors</th><th>bytes saved</th><th></th></tr>
                \(rows)</table>
                \(older(batches))
                """)
    }

    /// Keyset paging: the next page starts below the last batch shown.
    private static func older(_ batches: [BatchSummary]) -> HTML {
        guard batches.count >= BatchSummary.pageSize, let last = batches.last else { return "" }
        return "<p><a href=\"/batches\(HTML.query([("before", String(last.id))]))\">Older batches →</a></p>"
    }
}
